// The parts of sodium-native's API the response signer uses (the package ships no types).
declare module 'sodium-native' {
  interface Sodium {
    /** Fills `publicKey` (32 bytes) and `secretKey` (64 bytes) from a 32-byte Ed25519 seed. */
    crypto_sign_seed_keypair(publicKey: Buffer, secretKey: Buffer, seed: Buffer): void;
    /** Writes the 64-byte Ed25519 signature of `message` into `signature`. */
    crypto_sign_detached(signature: Buffer, message: Buffer, secretKey: Buffer): void;
    /** A buffer in guarded memory (kept out of swap and core dumps). */
    sodium_malloc(size: number): Buffer;
  }
  const sodium: Sodium;
  export default sodium;
}
