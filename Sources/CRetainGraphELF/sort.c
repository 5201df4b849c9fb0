#include "CRetainGraphELF.h"

#include <stdlib.h>

static int rg_compare_pairs(const void *left, const void *right) {
  const uint64_t *a = left;
  const uint64_t *b = right;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

void rg_sort_pairs(uint64_t *pairs, size_t count) {
  qsort(pairs, count, 2 * sizeof(uint64_t), rg_compare_pairs);
}
