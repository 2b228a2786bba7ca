// espeak-ng speech synthesis (Debian 12: libespeak-ng-dev).
#include <espeak-ng/speak_lib.h>
