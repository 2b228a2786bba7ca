// libmysofa: reads AES69 SOFA HRTF files (Debian 12: libmysofa-dev).
#include <mysofa.h>
