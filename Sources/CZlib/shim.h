#ifndef NFCTRACE_CZLIB_SHIM_H
#define NFCTRACE_CZLIB_SHIM_H
#include <zlib.h>
#endif
