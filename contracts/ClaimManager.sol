// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {IFuulManager} from "./interfaces/IFuulManager.sol";
import {IFuulProject} from "./interfaces/IFuulProject.sol";

/// The reference contract for the platform's claim-check vouchers.
///
/// Projects deposit ERC20 or native funds under their project address; a user redeems vouchers
/// that the claim service signed (EIP-712, `requiredSigners` distinct signatures of the owner's
/// signer set), and each voucher pays out of its project's balance once, until its deadline.
/// A batch is all or nothing: one refused voucher reverts the whole `claim` call.
contract ClaimManager is IFuulManager, Ownable, EIP712 {
    using SafeERC20 for IERC20;

    /// Every ClaimCheck field except `signatures`, in struct order. The claim service's typed data
    /// (services/claim/domain/voucher.ts) must describe exactly this.
    bytes32 public constant CLAIM_CHECK_TYPEHASH =
        keccak256(
            "ClaimCheck(address projectAddress,address to,address currency,uint8 currencyType,uint256 amount,uint8 reason,uint256 tokenId,uint256 deadline,bytes32 proof)"
        );

    uint96 public requiredSigners;
    mapping(address signer => bool) public isSigner;
    /// A proof is redeemed once; the claim service reads this before crediting an expired voucher back.
    mapping(bytes32 proof => bool) public claimedProofs;
    /// Base units each project can still pay out, per currency (address(0) is the native token).
    mapping(address project => mapping(address currency => uint256)) public projectBalances;

    event SignerUpdated(address indexed signer, bool authorised);
    event Deposited(address indexed projectAddress, address indexed currency, address from, uint256 amount);
    event Withdrawn(address indexed projectAddress, address indexed currency, address to, uint256 amount);

    error InsufficientProjectBalance(address projectAddress, address currency, uint256 available, uint256 requested);
    error NativeTransferFailed();
    error ProofAlreadyClaimed();

    constructor(
        address initialOwner,
        string memory name,
        string memory version,
        address[] memory signers,
        uint96 required
    ) Ownable(initialOwner) EIP712(name, version) {
        for (uint256 i; i < signers.length; ++i) _setSigner(signers[i], true);
        _setRequiredSigners(required);
    }

    /*  Signers (owner)  */

    function setSigner(address signer, bool authorised) external onlyOwner {
        _setSigner(signer, authorised);
    }

    function setRequiredSigners(uint96 value) external onlyOwner {
        _setRequiredSigners(value);
    }

    /*  Project funds  */

    /// Anyone may fund a project. Native funds: `currency` is address(0) and `msg.value` the amount.
    /// The amount is credited as given, so tokens that take a fee on transfer are not supported.
    function deposit(address projectAddress, address currency, uint256 amount) external payable {
        if (projectAddress == address(0)) revert ZeroAddress();
        if (amount == 0) revert InvalidArgument();
        if (currency == address(0)) {
            if (msg.value != amount) revert IncorrectMsgValue();
        } else {
            if (msg.value != 0) revert IncorrectMsgValue();
            IERC20(currency).safeTransferFrom(msg.sender, address(this), amount);
        }
        projectBalances[projectAddress][currency] += amount;
        emit Deposited(projectAddress, currency, msg.sender, amount);
    }

    /// Only the project address itself takes its unclaimed funds back.
    function withdraw(address currency, uint256 amount, address to) external {
        if (to == address(0)) revert ZeroAddress();
        _debit(msg.sender, currency, amount);
        emit Withdrawn(msg.sender, currency, to, amount);
        _pay(currency, to, amount);
    }

    /*  Claims  */

    /// Payable only because Fuul's ABI is; this contract charges no fee and refuses any value.
    function claim(ClaimCheck[] calldata claimChecks) external payable {
        if (msg.value != 0) revert IncorrectMsgValue();
        if (claimChecks.length == 0) revert InvalidArgument();
        for (uint256 i; i < claimChecks.length; ++i) _claim(claimChecks[i]);
    }

    /// The EIP-712 digest the signers sign for `check`.
    function hashClaimCheck(ClaimCheck calldata check) public view returns (bytes32) {
        return
            _hashTypedDataV4(
                keccak256(
                    abi.encode(
                        CLAIM_CHECK_TYPEHASH,
                        check.projectAddress,
                        check.to,
                        check.currency,
                        check.currencyType,
                        check.amount,
                        check.reason,
                        check.tokenId,
                        check.deadline,
                        check.proof
                    )
                )
            );
    }

    function _claim(ClaimCheck calldata check) private {
        if (block.timestamp > check.deadline) revert DeadlineExpired();
        if (claimedProofs[check.proof]) revert ProofAlreadyClaimed();
        if (check.to == address(0)) revert ZeroAddress();
        if (check.amount == 0 || check.tokenId != 0) revert InvalidArgument();
        if (check.currencyType == IFuulProject.TokenType.NATIVE) {
            if (check.currency != address(0)) revert InvalidArgument();
        } else if (check.currencyType != IFuulProject.TokenType.ERC_20 || check.currency == address(0)) {
            revert InvalidArgument(); // NFTs are not paid by this contract
        }
        _checkSignatures(hashClaimCheck(check), check.signatures);

        claimedProofs[check.proof] = true;
        _debit(check.projectAddress, check.currency, check.amount);
        emit Claimed(
            check.projectAddress,
            check.to,
            check.currency,
            check.amount,
            check.currencyType,
            check.tokenId,
            check.reason,
            check.proof
        );
        _pay(check.currency, check.to, check.amount);
    }

    /// Every signature must come from a distinct authorised signer, and there must be enough of them.
    function _checkSignatures(bytes32 digest, bytes[] calldata signatures) private view {
        if (signatures.length < requiredSigners) revert NotEnoughSignatures();
        address[] memory seen = new address[](signatures.length);
        for (uint256 i; i < signatures.length; ++i) {
            (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signatures[i]);
            if (err != ECDSA.RecoverError.NoError || !isSigner[signer]) revert InvalidSigner();
            for (uint256 j; j < i; ++j) if (seen[j] == signer) revert DuplicateSigner();
            seen[i] = signer;
        }
    }

    function _debit(address projectAddress, address currency, uint256 amount) private {
        uint256 available = projectBalances[projectAddress][currency];
        if (amount > available) revert InsufficientProjectBalance(projectAddress, currency, available, amount);
        projectBalances[projectAddress][currency] = available - amount;
    }

    /// State is updated before this call, so a re-entering recipient finds the proof spent.
    function _pay(address currency, address to, uint256 amount) private {
        if (currency == address(0)) {
            (bool ok, ) = to.call{value: amount}("");
            if (!ok) revert NativeTransferFailed();
        } else {
            IERC20(currency).safeTransfer(to, amount);
        }
    }

    function _setSigner(address signer, bool authorised) private {
        if (signer == address(0)) revert ZeroAddress();
        isSigner[signer] = authorised;
        emit SignerUpdated(signer, authorised);
    }

    function _setRequiredSigners(uint96 value) private {
        if (value == 0) revert InvalidArgument();
        requiredSigners = value;
        emit RequiredSignersUpdated(value);
    }
}
