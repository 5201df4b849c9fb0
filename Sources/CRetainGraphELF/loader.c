// Compiled with the GNU declarations of the loader calls (`Dl_info`, `struct dl_phdr_info`), which
// Swift's Glibc module leaves out.
#define _GNU_SOURCE 1
#include "CRetainGraphELF.h"

#include <dlfcn.h>
#include <stddef.h>
#if __has_include(<link.h>) && !defined(__APPLE__)
#include <link.h>
#define RG_HAS_DL_ITERATE_PHDR 1
#endif

int rg_address_info_of(const void *address, rg_address_info *info) {
  Dl_info found;
  if (dladdr(address, &found) == 0) return 0;
  info->file_name = found.dli_fname;
  info->file_base = found.dli_fbase;
  info->symbol_name = found.dli_sname;
  info->symbol_address = found.dli_saddr;
  return 1;
}

#ifdef RG_HAS_DL_ITERATE_PHDR
struct rg_visit {
  rg_image_visitor visitor;
  void *context;
};

static int rg_visit_image(struct dl_phdr_info *image, size_t size, void *data) {
  (void)size;
  struct rg_visit *visit = data;
  return visit->visitor(image->dlpi_addr, image->dlpi_name, image->dlpi_phdr, image->dlpi_phnum, visit->context);
}
#endif

int rg_each_loaded_image(rg_image_visitor visitor, void *context) {
#ifdef RG_HAS_DL_ITERATE_PHDR
  struct rg_visit visit = {visitor, context};
  return dl_iterate_phdr(rg_visit_image, &visit);
#else
  (void)visitor;
  (void)context;
  return 0;
#endif
}

#ifdef RG_HAS_DL_ITERATE_PHDR
static int rg_read_generation(struct dl_phdr_info *image, size_t size, void *data) {
  unsigned long long *generation = data;
  // The counters are there when the loader's structure is as long as glibc's (since 2.4).
  if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(image->dlpi_subs)) {
    *generation = image->dlpi_adds + image->dlpi_subs;
  }
  return 1;  // the first image says it for all
}
#endif

unsigned long long rg_loaded_image_generation(void) {
  unsigned long long generation = 0;
#ifdef RG_HAS_DL_ITERATE_PHDR
  dl_iterate_phdr(rg_read_generation, &generation);
#endif
  return generation;
}
