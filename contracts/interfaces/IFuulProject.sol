// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Only the part of Fuul v2's IFuulProject that its ClaimCheck struct uses. Declared under the same
/// name so the compiled ABI carries Fuul's own `internalType` strings and matches its published ABI.
interface IFuulProject {
    enum TokenType {
        NATIVE,
        ERC_20,
        ERC_721,
        ERC_1155
    }
}
