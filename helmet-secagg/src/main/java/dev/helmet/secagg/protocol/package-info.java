/**
 * SecAgg (Bonawitz et al., CCS 2017) and SecAgg+ (Bell et al., CCS 2020) as explicit state
 * machines, one class per role and round, independent of any transport: {@code ClientR1ShareKeys}
 * .. {@code ClientR4Unmasking} for a party, {@code ServerR0AdvertiseKeys} ..
 * {@code ServerR4Unmasking} for the server. The message records in {@link
 * dev.helmet.secagg.protocol.Messages} are the wire specification.
 */
package dev.helmet.secagg.protocol;
