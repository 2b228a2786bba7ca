// Only the declaration in include/CFuzzDriver.h is needed; libFuzzer (-sanitize=fuzzer) provides the driver.
#include "CFuzzDriver.h"
