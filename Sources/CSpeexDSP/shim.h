// speexdsp (Debian: libspeexdsp-dev): the preprocessor's noise suppressor, used before speech recognition.
#include <speex/speex_preprocess.h>
