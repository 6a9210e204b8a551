/** secp256k1 group order n, in a module of its own (no viem) so a key can be range-checked without the signing stack. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
