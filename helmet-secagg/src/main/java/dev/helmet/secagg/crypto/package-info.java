/**
 * The cryptographic building blocks of secure aggregation: X25519 key agreement, HKDF-SHA256,
 * AES-256-GCM, the AES-CTR mask generator, Ed25519 signatures (with randomised batch verification
 * over a variable-time edwards25519 multi-scalar multiplication, for public data only) and Shamir
 * sharing over GF(2^61 - 1). Every secret comes from {@link dev.helmet.secagg.crypto.Secrets}
 * (SecureRandom); no {@code toString} shows a secret.
 */
package dev.helmet.secagg.crypto;
