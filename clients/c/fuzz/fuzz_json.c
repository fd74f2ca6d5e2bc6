/* libFuzzer target for the JSON reader: any input either parses or is refused without a crash;
   what parses writes back to text that parses to an equal tree, and writing is stable. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[128];
    layoutd_json *j = layoutd_json_parse((const char *)data, size, err, sizeof err);
    if (!j) return 0;
    size_t n1, n2;
    char *t1 = layoutd_json_write(j, &n1);
    if (!t1) abort();
    layoutd_json *k = layoutd_json_parse(t1, n1, err, sizeof err);
    if (!k || !layoutd_json_equal(j, k)) abort();
    char *t2 = layoutd_json_write(k, &n2);
    if (!t2 || n1 != n2 || memcmp(t1, t2, n1)) abort();
    /* lookups on whatever came out */
    if (j->type == LAYOUTD_JSON_OBJECT && j->count) {
        if (layoutd_json_get(j, j->items[0].key) == NULL && strlen(j->items[0].key) == j->items[0].key_len) abort();
    }
    free(t1);
    free(t2);
    layoutd_json_free(j);
    layoutd_json_free(k);
    return 0;
}
