#ifndef NFCTRACE_CINPUTFAULT_H
#define NFCTRACE_CINPUTFAULT_H
#include <stddef.h>

/// Keeps `length` bytes of `text` (at most 4096, the rest is cut) as the message the SIGBUS
/// handler writes. Called before a mapped file's bytes are used, never from a signal handler.
void nfctrace_input_fault_set_message(const char *text, size_t length);

/// Installs the SIGBUS handler (POSIX `sigaction`): it writes the message to stderr and ends
/// the process with `status`. Returns 0, or -1 with errno set when `sigaction` fails.
int nfctrace_input_fault_install(int status);

#endif
