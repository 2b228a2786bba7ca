// Vectorized layer arithmetic for RNNoise (xiph.org), put in place of the portable C that the RNNoise build
// fetched by scripts/setup was compiled with. See RNNoiseKernels.c and README "Noise suppression".
#ifndef SOUNDSCAPE_RNNOISE_KERNELS_H
#define SOUNDSCAPE_RNNOISE_KERNELS_H

/// Why the kernels are or are not in use (the value `ss_rnnoise_kernels_install` returns).
enum {
    SS_RNNOISE_KERNELS_INSTALLED = 0,
    SS_RNNOISE_KERNELS_NO_AVX2 = 1,         // the processor lacks AVX2 (or this is not x86-64)
    SS_RNNOISE_KERNELS_UNKNOWN_BUILD = 2,   // the library's layer function is not the one these kernels were checked against
    SS_RNNOISE_KERNELS_NO_SLOT = 3,         // the library does not call its layer function through its PLT
    SS_RNNOISE_KERNELS_SELF_TEST_FAILED = 4,// the kernels disagree with the library on test layers
    SS_RNNOISE_KERNELS_PROTECT_FAILED = 5,  // the library's relocation table could not be made writable
};

/// Routes the layer function of the RNNoise library opened as `handle` (a `dlopen` handle) to kernels that
/// use AVX2 and RNNoise's 8-bit weights. Only the one build these kernels were checked against is changed,
/// and only after a self-test; otherwise nothing changes. Safe to call again and from several threads.
int ss_rnnoise_kernels_install(void *handle);

/// A sentence saying what `code` means.
const char *ss_rnnoise_kernels_describe(int code);

/// Runs the library's own layer function and the kernels on test layers of every kind the library uses
/// (dense and block-sparse, float and 8-bit weights, with bias and GRU diagonal) and returns how many
/// disagree in any bit; -1 when the kernels cannot run here (see the codes above, returned in `*why`).
int ss_rnnoise_kernels_self_test(void *handle, int *why);

#endif
