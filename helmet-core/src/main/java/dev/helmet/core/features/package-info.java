/**
 * Fixed, data-independent feature stages (HOG, the scattering transform, raw pixels), applied before
 * any private computation and cached on disk: they cost no privacy because no parameter is fitted on
 * the data.
 */
package dev.helmet.core.features;
