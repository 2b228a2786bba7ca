// libFuzzer's driver, called from each fuzzer's own main. SwiftPM links an executable target's entry point as
// MODULE_main (main is made an alias of it), so libFuzzer's main never runs; the fuzzers start the driver
// themselves with their LLVMFuzzerTestOneInput.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
