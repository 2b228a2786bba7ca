// speexdsp (Debian: libspeexdsp-dev): the preprocessor's noise suppressor and the resampler, used before speech recognition.
#include <speex/speex_preprocess.h>
// Its resampler, around the RNNoise suppressor (which works at 48 kHz).
#include <speex/speex_resampler.h>
