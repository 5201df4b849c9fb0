#ifndef CRETAINGRAPHCENSUS_H
#define CRETAINGRAPHCENSUS_H

#include <stddef.h>
#include <stdint.h>

/// One live record: an object seen by the interposed `swift_allocObject`.
typedef struct {
  /// The object (its memory kept by one unowned count while recorded).
  const void *_Nonnull object;
  /// Its allocation number: in order on each thread (from slots reserved 64 at a time); an
  /// allocation that happens after `rgc_next_sequence` returned is numbered at least that.
  uint64_t sequence;
  /// The size requested from `swift_allocObject` (includes tail allocation).
  uint64_t size;
  /// Return addresses of the allocating call stack, when backtraces were recorded; else null.
  void *_Nullable const *_Nullable frames;
  /// How many `frames`.
  int32_t frameCount;
  /// The scope the allocation was made in (the value of the task-local given to
  /// `rgc_set_scope_key`, read while `rgc_begin_scoping` was in effect); 0 for none.
  uint32_t scope;
} rgc_record;

/// Turns recording on (`backtraces`: also the allocating call stack). Nests with `rgc_stop`.
void rgc_start(int backtraces);
/// Turns recording off once every `rgc_start` has its `rgc_stop`; `backtraces` is what the matching
/// start asked for (call stacks are recorded while a start that asked for them is not stopped).
void rgc_stop(int backtraces);
/// Whether allocations are being recorded.
int rgc_is_running(void);
/// Whether the census was ever started in this process.
int rgc_has_started(void);
/// Tests: pauses `microseconds` after each chunk of this thread's sweeps (0: none).
void rgc_test_delay_sweeps_on_this_thread(uint32_t microseconds);
/// Tests: how many sweeps delayed by `rgc_test_delay_sweeps_on_this_thread` run.
int rgc_test_delayed_sweeps_running(void);
/// Tests: counts this thread's waits for the table's lock once the table fell far behind.
void rgc_test_count_waits_on_this_thread(void);
/// Tests: how many waits counted by `rgc_test_count_waits_on_this_thread` are going on.
int rgc_test_counted_waits(void);
/// Whether this process's `swift_allocObject` is the census's (the C target is linked first).
int rgc_is_interposed(void);
/// A mark: every allocation that happens after the call gets at least this number (threads give
/// up the slots they reserved before it).
uint64_t rgc_next_sequence(void);

/// Stops recording this thread's allocations until `rgc_resume_this_thread` (nests): for the
/// census's own queries.
/// Sets the task-local (a `TaskLocal<UInt32>` object's address) whose value in the allocating task
/// (or thread) is each recorded allocation's scope, while scoping is on.
void rgc_set_scope_key(const void *_Nonnull key);
/// Turns reading each allocation's scope on; nests with `rgc_end_scoping`.
void rgc_begin_scoping(void);
/// Undoes one `rgc_begin_scoping`.
void rgc_end_scoping(void);
/// The largest scope a record keeps (scopes are kept modulo one more than it).
uint32_t rgc_largest_scope(void);
/// Whether `address` lies in the loaded image that holds the census itself (the program the
/// package is linked into), by `dladdr`.
int rgc_in_census_image(const void *_Nonnull address);
/// Whether the runtime's task-local lookup is in the process (without it, every scope reads 0).
int rgc_can_read_scopes(void);
void rgc_pause_this_thread(void);
void rgc_resume_this_thread(void);

/// Takes the census lock (queries, sweeps). Whoever holds it runs C code that takes no lock but
/// malloc's: an allocating thread waits for it when the table fell far behind its sweeps.
void rgc_lock(void);
void rgc_unlock(void);

/// With the lock held: forgets dead records first when `sweep_first` (releasing their unowned
/// count), then copies up to `capacity` live records with `since <= sequence < before` into
/// `buffer`. Returns how many live records there are in the range (which may exceed `capacity`).
size_t rgc_collect(uint64_t since, uint64_t before, rgc_record *_Nullable buffer, size_t capacity,
                   int sweep_first);
/// Keeps the memory of each record's object (one more unowned count each), so that a copy of the
/// records stays readable after the lock is released and a sweep forgets them; call with the lock
/// held. `rgc_release_records` gives the counts back (any time, without the lock).
void rgc_hold_records(const rgc_record *_Nonnull records, size_t count);
void rgc_release_records(const rgc_record *_Nonnull records, size_t count);
/// Takes the lock, sweeps, and copies the live records with `since <= sequence < before` into a
/// malloc'd buffer (without call stacks), each object's memory kept by one more unowned count
/// (`rgc_release_records`, then `free`); `*count` is how many. The buffer is null when there are
/// none or memory ran out.
rgc_record *_Nullable rgc_copy_live(uint64_t since, uint64_t before, size_t *_Nonnull count);
/// Whether a heap object has begun deinitialising, read from its counts (no write to it).
int rgc_is_deallocating(const void *_Nonnull object);
/// `rgc_copy_live` without the unowned counts (nothing to release, only `free`): for a forked
/// child, where no other thread frees an object, and whose writes to every object's header would
/// copy each page of the heap.
rgc_record *_Nullable rgc_copy_live_unheld(uint64_t since, uint64_t before, size_t *_Nonnull count);
/// Takes the lock and copies up to `capacity` return addresses of the call stack recorded when
/// `object` was allocated; returns how many (0 when it is not recorded or has no call stack).
/// Whether a start ever asked for call stacks (when not, no record holds one, and
/// `rgc_copy_frames`, which reads the whole table, need not be asked).
int rgc_backtraces_ever_recorded(void);
size_t rgc_copy_frames(const void *_Nonnull object, void *_Nullable *_Nonnull frames, size_t capacity);
/// With the lock held: forgets every record (live or not).
void rgc_forget_all(void);
/// The table's chunks in use, those in use after the last sweep, and the bound past which an
/// allocating thread waits for the lock to sweep (`behind_factor` times `after_sweep`, and at least
/// `behind_minimum`), for tests.
void rgc_chunk_counts(uint64_t *_Nonnull live, uint64_t *_Nonnull after_sweep, uint64_t *_Nonnull behind_factor,
                      uint64_t *_Nonnull behind_minimum);
/// Allocations not recorded because the table was full or out of memory.
uint64_t rgc_dropped_count(void);

/// One live task the census saw created (queued.c): recorded by its closure context, which the task
/// holds until it finishes. The task's own memory is never read.
typedef struct {
  /// The task (an identity only: its memory may be gone).
  const void *_Nonnull task;
  /// The closure context the task was given (its memory kept by one unowned count while recorded).
  const void *_Nonnull context;
  /// The async function pointer of the task's entry function.
  const void *_Nonnull entry;
  /// Return addresses of the creating call stack (from the interposer's caller).
  void *_Nullable const *_Nullable frames;
  int32_t frameCount;
  uint64_t sequence;
} rgc_task_record;

/// One live heap block the census saw copied (queued.c), valid to read while the queued lock is held.
typedef struct {
  const void *_Nonnull block;
  /// The block's size (its descriptor's), 0 when unknown.
  uint64_t size;
  /// The label of the queue it was last queued on (owned by the census); null when never queued.
  const char *_Nullable queue;
  /// What Dispatch keeps it as, beside a queue (an `RGC_BLOCK_…` value): 0 none, a
  /// DispatchWorkItem's block or its wrapper (given to dispatch_block_create), or a dispatch
  /// source's event, cancel or registration handler.
  int32_t workItem;
  uint64_t sequence;
} rgc_block_record;

/// `rgc_block_record.workItem`: a DispatchWorkItem's block (or its wrapper).
#define RGC_BLOCK_WORK_ITEM 1
/// `rgc_block_record.workItem`: a dispatch source's event handler.
#define RGC_BLOCK_SOURCE_EVENT_HANDLER 2
/// `rgc_block_record.workItem`: a dispatch source's cancel handler.
#define RGC_BLOCK_SOURCE_CANCEL_HANDLER 3
/// `rgc_block_record.workItem`: a dispatch source's registration handler.
#define RGC_BLOCK_SOURCE_REGISTRATION_HANDLER 4

/// The lock that keeps recorded blocks from being freed and task records from changing (recursive).
void rgc_lock_queued(void);
void rgc_unlock_queued(void);
/// With the queued lock held: forgets finished tasks, then copies up to `capacity` live task records.
/// Returns how many there are.
size_t rgc_collect_tasks(rgc_task_record *_Nullable buffer, size_t capacity);
/// With the queued lock held: copies up to `capacity` live block records. Returns how many there are.
size_t rgc_collect_blocks(rgc_block_record *_Nullable buffer, size_t capacity);
/// The handler blocks the census saw set on the dispatch source `source` (a `dispatch_source_t`) and
/// not since replaced, nor (event and registration handlers) cancelled: up to `capacity`, each with
/// its `RGC_BLOCK_SOURCE_…` kind and one reference taken for the caller, who gives it back with
/// `_Block_release`. Returns how many were written.
size_t rgc_source_handlers(const void *_Nonnull source, const void *_Nullable *_Nonnull handlers,
                           int32_t *_Nonnull kinds, size_t capacity);
/// Gives back the reference `rgc_source_handlers` took on a handler block.
void rgc_release_handler(const void *_Nonnull block);
/// Forgets every task and block record.
void rgc_forget_queued(void);
/// Whether this thread's allocations are not being recorded (a census query runs on it).
int rgc_thread_is_paused(void);
/// The usable size of the malloc'd block at `object` (a live Swift heap object: swift_slowAlloc is
/// malloc on Linux).
size_t rgc_allocation_size(const void *_Nonnull object);

/// Installs a handler for `signal` that writes one byte to the file descriptor `fd` (made
/// non-blocking) each time the signal arrives, and nothing else (async-signal-safe; `errno` is kept);
/// unblocks the signal in the calling thread (threads it starts inherit that).
/// Returns the file descriptor the handler wrote to before (to be closed by the caller), -1 when
/// there was none, or -2 when `sigaction` failed (`errno` says why).
int rgc_install_signal_pipe(int signal, int fd);

#endif
