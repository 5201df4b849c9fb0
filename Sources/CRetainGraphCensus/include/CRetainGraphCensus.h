#ifndef CRETAINGRAPHCENSUS_H
#define CRETAINGRAPHCENSUS_H

#include <stddef.h>
#include <stdint.h>

/// One live record: an object seen by the interposed `swift_allocObject`.
typedef struct {
  /// The object (its memory kept by one unowned count while recorded).
  const void *_Nonnull object;
  /// Its allocation number: allocations are numbered in order from the first one recorded.
  uint64_t sequence;
  /// The size requested from `swift_allocObject` (includes tail allocation).
  uint64_t size;
  /// Return addresses of the allocating call stack, when backtraces were recorded; else null.
  void *_Nullable const *_Nullable frames;
  /// How many `frames`.
  int32_t frameCount;
} rgc_record;

/// Turns recording on (`backtraces`: also the allocating call stack). Nests with `rgc_stop`.
void rgc_start(int backtraces);
/// Turns recording off once every `rgc_start` has its `rgc_stop`.
void rgc_stop(void);
/// Whether allocations are being recorded.
int rgc_is_running(void);
/// Whether this process's `swift_allocObject` is the census's (the C target is linked first).
int rgc_is_interposed(void);
/// The number the next recorded allocation will get.
uint64_t rgc_next_sequence(void);

/// Stops recording this thread's allocations until `rgc_resume_this_thread` (nests): for the
/// census's own queries.
void rgc_pause_this_thread(void);
void rgc_resume_this_thread(void);

/// Takes the census lock (queries, sweeps). Never taken on the allocation path, which only tries it.
void rgc_lock(void);
void rgc_unlock(void);

/// With the lock held: forgets dead records first when `sweep_first` (releasing their unowned
/// count), then copies up to `capacity` live records with `since <= sequence < before` into
/// `buffer`. Returns how many live records there are in the range (which may exceed `capacity`).
size_t rgc_collect(uint64_t since, uint64_t before, rgc_record *_Nullable buffer, size_t capacity,
                   int sweep_first);
/// With the lock held: forgets every record (live or not).
void rgc_forget_all(void);
/// Allocations not recorded because the table was full or out of memory.
uint64_t rgc_dropped_count(void);

#endif
