#ifndef CRETAINGRAPHELF_H
#define CRETAINGRAPHELF_H

// The names RetainGraphImages reads binary images with: <elf.h>'s types and constants, the DWARF
// constants of the forms, tags and attributes the DWARF reader understands, and the two loader
// calls whose glibc declarations Swift's Glibc module does not export (they need _GNU_SOURCE).

#include <stddef.h>
#include <stdint.h>

#if __has_include(<elf.h>)
#include <elf.h>
#include <string.h>

/// Whether `identity` (`e_ident`, `EI_NIDENT` bytes) starts an ELF64 little-endian image.
static inline int rg_elf_is_elf64_lsb(const unsigned char *_Nonnull identity) {
  return memcmp(identity, ELFMAG, SELFMAG) == 0 && identity[EI_CLASS] == ELFCLASS64 &&
         identity[EI_DATA] == ELFDATA2LSB;
}

/// `ELF64_ST_TYPE`: a symbol's type (`STT_FUNC`, `STT_OBJECT`) from its `st_info`.
static inline unsigned char rg_elf64_symbol_type(unsigned char info) { return ELF64_ST_TYPE(info); }
/// `ELF64_R_SYM`: the symbol index of a relocation's `r_info`.
static inline uint64_t rg_elf64_relocation_symbol(uint64_t info) { return ELF64_R_SYM(info); }
/// `ELF64_R_TYPE`: the relocation type of a relocation's `r_info`.
static inline uint64_t rg_elf64_relocation_type(uint64_t info) { return ELF64_R_TYPE(info); }
#endif

// MARK: - DWARF (DWARF Debugging Information Format, version 5, section 7; GNU and Apple extensions)

// Unit types (7.5.1).
static const uint8_t DW_UT_compile = 0x01;
static const uint8_t DW_UT_partial = 0x03;

// Tags (7.5.3).
static const uint64_t DW_TAG_formal_parameter = 0x05;
static const uint64_t DW_TAG_class_type = 0x02;
static const uint64_t DW_TAG_enumeration_type = 0x04;
static const uint64_t DW_TAG_structure_type = 0x13;
static const uint64_t DW_TAG_union_type = 0x17;
static const uint64_t DW_TAG_compile_unit = 0x11;
static const uint64_t DW_TAG_inlined_subroutine = 0x1d;
static const uint64_t DW_TAG_subprogram = 0x2e;
static const uint64_t DW_TAG_variable = 0x34;

// Attributes (7.5.4).
static const uint64_t DW_AT_location = 0x02;
static const uint64_t DW_AT_low_pc = 0x11;
static const uint64_t DW_AT_high_pc = 0x12;
static const uint64_t DW_AT_ranges = 0x55;
static const uint64_t DW_AT_stmt_list = 0x10;
static const uint64_t DW_AT_comp_dir = 0x1b;
static const uint64_t DW_AT_decl_file = 0x3a;
static const uint64_t DW_AT_decl_line = 0x3b;
static const uint64_t DW_AT_abstract_origin = 0x31;
static const uint64_t DW_AT_specification = 0x47;
static const uint64_t DW_AT_linkage_name = 0x6e;
static const uint64_t DW_AT_MIPS_linkage_name = 0x2007;
static const uint64_t DW_AT_APPLE_optimized = 0x3fe1;

// Forms (7.5.6).
static const uint64_t DW_FORM_addr = 0x01;
static const uint64_t DW_FORM_block2 = 0x03;
static const uint64_t DW_FORM_block4 = 0x04;
static const uint64_t DW_FORM_data2 = 0x05;
static const uint64_t DW_FORM_data4 = 0x06;
static const uint64_t DW_FORM_data8 = 0x07;
static const uint64_t DW_FORM_string = 0x08;
static const uint64_t DW_FORM_block = 0x09;
static const uint64_t DW_FORM_block1 = 0x0a;
static const uint64_t DW_FORM_data1 = 0x0b;
static const uint64_t DW_FORM_flag = 0x0c;
static const uint64_t DW_FORM_sdata = 0x0d;
static const uint64_t DW_FORM_strp = 0x0e;
static const uint64_t DW_FORM_udata = 0x0f;
static const uint64_t DW_FORM_ref_addr = 0x10;
static const uint64_t DW_FORM_ref1 = 0x11;
static const uint64_t DW_FORM_ref2 = 0x12;
static const uint64_t DW_FORM_ref4 = 0x13;
static const uint64_t DW_FORM_ref8 = 0x14;
static const uint64_t DW_FORM_ref_udata = 0x15;
static const uint64_t DW_FORM_indirect = 0x16;
static const uint64_t DW_FORM_sec_offset = 0x17;
static const uint64_t DW_FORM_exprloc = 0x18;
static const uint64_t DW_FORM_flag_present = 0x19;
static const uint64_t DW_FORM_strx = 0x1a;
static const uint64_t DW_FORM_addrx = 0x1b;
static const uint64_t DW_FORM_ref_sup4 = 0x1c;
static const uint64_t DW_FORM_strp_sup = 0x1d;
static const uint64_t DW_FORM_data16 = 0x1e;
static const uint64_t DW_FORM_line_strp = 0x1f;
static const uint64_t DW_FORM_ref_sig8 = 0x20;
static const uint64_t DW_FORM_implicit_const = 0x21;
static const uint64_t DW_FORM_loclistx = 0x22;
static const uint64_t DW_FORM_rnglistx = 0x23;
static const uint64_t DW_FORM_ref_sup8 = 0x24;
static const uint64_t DW_FORM_strx1 = 0x25;
static const uint64_t DW_FORM_strx2 = 0x26;
static const uint64_t DW_FORM_strx3 = 0x27;
static const uint64_t DW_FORM_strx4 = 0x28;
static const uint64_t DW_FORM_addrx1 = 0x29;
static const uint64_t DW_FORM_addrx2 = 0x2a;
static const uint64_t DW_FORM_addrx3 = 0x2b;
static const uint64_t DW_FORM_addrx4 = 0x2c;
static const uint64_t DW_FORM_GNU_addr_index = 0x1f01;
static const uint64_t DW_FORM_GNU_str_index = 0x1f02;
static const uint64_t DW_FORM_GNU_ref_alt = 0x1f20;
static const uint64_t DW_FORM_GNU_strp_alt = 0x1f21;

// Range list entries of `.debug_rnglists` (DWARF 5, 7.25).
static const uint8_t DW_RLE_end_of_list = 0x00;
static const uint8_t DW_RLE_base_addressx = 0x01;
static const uint8_t DW_RLE_startx_endx = 0x02;
static const uint8_t DW_RLE_startx_length = 0x03;
static const uint8_t DW_RLE_offset_pair = 0x04;
static const uint8_t DW_RLE_base_address = 0x05;
static const uint8_t DW_RLE_start_end = 0x06;
static const uint8_t DW_RLE_start_length = 0x07;

// Location expression operations (7.7.1).
// Line number program header (DWARF 5, 6.2.4.1): content type codes of directory and file entries.
static const uint64_t DW_LNCT_path = 0x1;
static const uint64_t DW_LNCT_directory_index = 0x2;

static const uint8_t DW_OP_deref = 0x06;
static const uint8_t DW_OP_plus_uconst = 0x23;
/// `DW_OP_reg0`; `DW_OP_regN` is `DW_OP_reg0 + N` for N up to 31.
static const uint8_t DW_OP_reg0 = 0x50;
static const uint8_t DW_OP_entry_value = 0xa3;
static const uint8_t DW_OP_GNU_entry_value = 0xf3;

// MARK: - Sorting

/// Sorts `count` pairs of 64-bit words (`pairs` holds 2 × `count`) by their first word, then their
/// second: the readers sort hundreds of thousands of symbols and address ranges by address with it
/// (C's `qsort` with a C comparison; a Swift comparison is slow in a debug build).
void rg_sort_pairs(uint64_t *_Nonnull pairs, size_t count);

// MARK: - The dynamic loader

/// What the dynamic loader says of one address (glibc's `Dl_info`, field by field).
typedef struct {
  /// The path of the image that contains the address.
  const char *_Nullable file_name;
  /// The address the image is loaded at (its ELF header's).
  const void *_Nullable file_base;
  /// The nearest dynamic symbol at or below the address, and its address.
  const char *_Nullable symbol_name;
  const void *_Nullable symbol_address;
} rg_address_info;

/// `dladdr`: fills `info` and returns non-zero when a loaded image contains `address`.
int rg_address_info_of(const void *_Nonnull address, rg_address_info *_Nonnull info);

/// Called once per loaded image with its load bias (`dlpi_addr`), its path (empty for the main
/// program), and its program headers; a non-zero result stops the iteration.
typedef int (*_Nonnull rg_image_visitor)(
  uintptr_t bias, const char *_Nullable name, const void *_Nullable program_headers, uint16_t count,
  void *_Nullable context);

/// `dl_iterate_phdr`: calls `visitor` for each loaded image; returns 0 where the loader cannot list
/// its images.
int rg_each_loaded_image(rg_image_visitor visitor, void *_Nullable context);

/// How many times the loader has loaded and unloaded an image (glibc's `dlpi_adds` plus
/// `dlpi_subs`): a new value means the list of images changed (a `dlopen` or a `dlclose`). 0 where
/// the loader does not count them.
unsigned long long rg_loaded_image_generation(void);

#endif
