#define _GNU_SOURCE
#include "clinux.h"
#include <string.h>

const void *clinux_memrchr(const void *s, int c, size_t n) {
    return memrchr(s, c, n);
}
