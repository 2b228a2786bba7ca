// libsystemd's D-Bus client, sd-bus (Debian 12: libsystemd-dev): reads iio-sensor-proxy's compass.
#include <systemd/sd-bus.h>
