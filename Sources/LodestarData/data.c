#include "lodestar_data.h"
#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char wmm_cof[] = {
#embed "WMM.COF"
};

const unsigned char *lodestar_wmm_cof(size_t *length) {
    *length = sizeof wmm_cof;
    return wmm_cof;
}
