// SwiftPM links each executable target with `main` renamed to `<Target>_main` (so tests can import
// executables). A libFuzzer target has no main of its own: these hand the process to libFuzzer's
// driver, with the target's LLVMFuzzerTestOneInput (each executable defines exactly one).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run(int argc, char **argv) { return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput); }

int FuzzTraceFile_main(int argc, char **argv) { return run(argc, argv); }
int FuzzServerRequest_main(int argc, char **argv) { return run(argc, argv); }
int FuzzFeedPage_main(int argc, char **argv) { return run(argc, argv); }
int FuzzScrollAdapter_main(int argc, char **argv) { return run(argc, argv); }
int FuzzFetcherEstimates_main(int argc, char **argv) { return run(argc, argv); }
int FuzzProgressiveJPEG_main(int argc, char **argv) { return run(argc, argv); }
