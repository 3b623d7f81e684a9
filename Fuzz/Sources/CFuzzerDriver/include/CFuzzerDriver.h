#ifndef NFCTRACE_CFUZZERDRIVER_H
#define NFCTRACE_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt `FuzzerInterface.h`): parses the libFuzzer flags in
/// argc/argv and runs `callback` on every input. Linked in by `-sanitize=fuzzer`.
int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*callback)(const uint8_t *data, size_t size));

#endif
