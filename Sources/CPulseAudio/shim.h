// PulseAudio client library (Debian 12: libpulse-dev): the simple blocking API and the asynchronous API.
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>
