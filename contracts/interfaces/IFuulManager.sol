// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IFuulProject} from "./IFuulProject.sol";

/// The claim side of Fuul v2's IFuulManager (npm package fuul/protocol-abis, v2): the ClaimCheck struct, the
/// `claim` entry point, the `Claimed` event and the errors a claim can end in. Clients built for
/// Fuul's ABI therefore redeem our vouchers unchanged.
interface IFuulManager {
    /// Fuul names 0 and 1; 2 is this platform's payout to a master affiliate (agency).
    enum ClaimReason {
        AFFILIATE_PAYOUT,
        END_USER_PAYOUT,
        AGENCY_PAYOUT
    }

    /// A voucher. Every field but `signatures` is covered by the EIP-712 signatures.
    struct ClaimCheck {
        address projectAddress;
        address to;
        address currency;
        IFuulProject.TokenType currencyType;
        uint256 amount;
        ClaimReason reason;
        uint256 tokenId;
        uint256 deadline;
        bytes32 proof;
        bytes[] signatures;
    }

    event Claimed(
        address indexed projectAddress,
        address to,
        address currency,
        uint256 amount,
        IFuulProject.TokenType currencyType,
        uint256 tokenId,
        ClaimReason reason,
        bytes32 proof
    );

    event RequiredSignersUpdated(uint96 value);

    error DeadlineExpired();
    error DuplicateSigner();
    error IncorrectMsgValue();
    error InvalidArgument();
    error InvalidSigner();
    error NotEnoughSignatures();
    error ZeroAddress();

    function claim(ClaimCheck[] calldata claimChecks) external payable;

    function requiredSigners() external view returns (uint96);

    function setRequiredSigners(uint96 value) external;
}
