// The census's view of holders that are not swift_allocObject allocations: live Swift tasks
// (an interposed swift_task_create) and heap blocks that Dispatch keeps for queued work (an
// interposed _Block_copy / _Block_release, and the Dispatch entry points that queue a block, for
// the queue's label). Nothing here reads memory it does not know to be alive.
#define _GNU_SOURCE
#include "CRetainGraphCensus.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern void swift_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);
extern bool swift_isDeallocating(void *object);
extern size_t swift_retainCount(void *object);

// In census.c.
int rgc_thread_is_paused(void);

#define TASK_FRAMES 12

// Block ABI (clang's Block-ABI-Apple.rst, BlocksRuntime's runtime.c): flags at offset 8, the
// descriptor at 24 ({reserved, size, ...}); a heap block has BLOCK_NEEDS_FREE and a reference count
// in the low 16 bits, counted in twos (bit 0 marks a block being deallocated).
#define BLOCK_NEEDS_FREE (1 << 24)
#define BLOCK_IS_GLOBAL (1 << 28)
#define BLOCK_REFCOUNT_MASK 0xfffe
#define BLOCK_DEALLOCATING 0x0001

typedef struct {
  void *isa;
  volatile int32_t flags;
  int32_t reserved;
  void *invoke;
  struct {
    uintptr_t reserved;
    uintptr_t size;
  } *descriptor;
} BlockHeader;

typedef struct {
  void *block;  // null: empty; (void *)1: deleted
  uint64_t size;
  char *queue;  // malloc'd label of the queue it was last queued on; null when never queued
  int32_t workItem;
  uint64_t sequence;
  // The dispatch source whose handler it is (workItem is a source handler kind), until the handler
  // is replaced or the source cancelled; an identity only, never read.
  void *source;
} BlockEntry;

typedef struct {
  void *task;
  void *context;
  void *entry;
  void **frames;  // malloc'd [count, frame...]
  uint64_t sequence;
} TaskEntry;

static pthread_mutex_t queued_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static _Atomic uint64_t tracked_blocks;
static BlockEntry *blocks;
static uint64_t block_capacity;
static uint64_t block_used;  // live + deleted slots
static TaskEntry *tasks;
static uint64_t task_count;
static uint64_t task_capacity;
static uint64_t tasks_after_sweep = 16;
static _Atomic uint64_t next_queued_sequence;
// The queue a Dispatch entry point on this thread is queueing onto (for the copy it makes).
static _Thread_local void *pending_queue;
static _Thread_local int pending_work_item;
// The dispatch source a handler is being set on by this thread (for the copy it makes).
static _Thread_local void *pending_source;

#define DELETED ((void *)1)

static uint64_t slot_of(void *block, uint64_t capacity) {
  uint64_t key = (uint64_t)(uintptr_t)block;
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return key & (capacity - 1);
}

static BlockEntry *find_block(void *block) {
  if (!blocks) return NULL;
  for (uint64_t probe = slot_of(block, block_capacity), step = 0; step < block_capacity;
       probe = (probe + 1) & (block_capacity - 1), step++) {
    if (blocks[probe].block == NULL) return NULL;
    if (blocks[probe].block == block) return &blocks[probe];
  }
  return NULL;
}

static bool grow_blocks(void) {
  uint64_t capacity = block_capacity ? block_capacity * 2 : 256;
  uint64_t live = 0;
  for (uint64_t index = 0; index < block_capacity; index++) {
    if (blocks[index].block && blocks[index].block != DELETED) live++;
  }
  if (live * 4 < block_capacity) capacity = block_capacity;  // mostly deleted: rehash in place
  BlockEntry *fresh = calloc(capacity, sizeof(BlockEntry));
  if (!fresh) return false;
  for (uint64_t index = 0; index < block_capacity; index++) {
    BlockEntry *entry = &blocks[index];
    if (!entry->block || entry->block == DELETED) continue;
    uint64_t probe = slot_of(entry->block, capacity);
    while (fresh[probe].block) probe = (probe + 1) & (capacity - 1);
    fresh[probe] = *entry;
  }
  free(blocks);
  blocks = fresh;
  block_capacity = capacity;
  block_used = live;
  return true;
}

// With the lock held.
static BlockEntry *add_block(void *block, uint64_t size) {
  BlockEntry *known = find_block(block);
  if (known) return known;
  if ((block_used + 1) * 2 > block_capacity && !grow_blocks()) return NULL;
  uint64_t probe = slot_of(block, block_capacity);
  while (blocks[probe].block && blocks[probe].block != DELETED) probe = (probe + 1) & (block_capacity - 1);
  if (!blocks[probe].block) block_used++;
  blocks[probe] = (BlockEntry){block, size, NULL, 0,
                               atomic_fetch_add_explicit(&next_queued_sequence, 1, memory_order_relaxed), NULL};
  atomic_fetch_add_explicit(&tracked_blocks, 1, memory_order_release);
  return &blocks[probe];
}

static void remove_block(BlockEntry *entry) {
  free(entry->queue);
  *entry = (BlockEntry){DELETED, 0, NULL, 0, 0, NULL};
  atomic_fetch_sub_explicit(&tracked_blocks, 1, memory_order_release);
}

static char *queue_label(void *queue) {
  typedef const char *(*GetLabel)(void *);
  static _Atomic(GetLabel) get_label;
  GetLabel function = atomic_load_explicit(&get_label, memory_order_acquire);
  if (!function) {
    function = (GetLabel)dlsym(RTLD_DEFAULT, "dispatch_queue_get_label");
    atomic_store_explicit(&get_label, function, memory_order_release);
  }
  const char *label = function && queue ? function(queue) : NULL;
  return strdup(label ? label : "");
}

// MARK: - Blocks

typedef void *(*BlockCopy)(const void *);
typedef void (*BlockRelease)(const void *);

static void *resolve(_Atomic(void *) *slot, const char *name) {
  void *function = atomic_load_explicit(slot, memory_order_acquire);
  if (!function) {
    function = dlsym(RTLD_NEXT, name);
    atomic_store_explicit(slot, function, memory_order_release);
  }
  return function;
}

static _Atomic(void *) real_block_copy;
static _Atomic(void *) real_block_release;

void *_Block_copy(const void *block) {
  BlockCopy real = (BlockCopy)resolve(&real_block_copy, "_Block_copy");
  if (!block || !rgc_is_running() || rgc_thread_is_paused()) return real(block);
  const BlockHeader *source = block;
  // A stack block is copied to a new heap block; a heap block only gains a reference.
  bool fromStack = !(source->flags & (BLOCK_NEEDS_FREE | BLOCK_IS_GLOBAL));
  uint64_t size = fromStack && source->descriptor ? source->descriptor->size : 0;
  void *copy = real(block);
  if (fromStack && copy && copy != block) {
    pthread_mutex_lock(&queued_lock);
    BlockEntry *entry = add_block(copy, size);
    if (entry && pending_queue) entry->queue = queue_label(pending_queue);
    if (entry && pending_work_item) entry->workItem = pending_work_item;
    if (entry && pending_source) entry->source = pending_source;
    pthread_mutex_unlock(&queued_lock);
  }
  return copy;
}

void _Block_release(const void *block) {
  BlockRelease real = (BlockRelease)resolve(&real_block_release, "_Block_release");
  if (!block || atomic_load_explicit(&tracked_blocks, memory_order_acquire) == 0) {
    real(block);
    return;
  }
  pthread_mutex_lock(&queued_lock);
  BlockEntry *entry = find_block((void *)block);
  if (!entry) {
    pthread_mutex_unlock(&queued_lock);
    real(block);
    return;
  }
  // Every release of a recorded block comes through here (BlocksRuntime calls _Block_release
  // through its PLT too), under this lock: the count read here is the one this release decrements.
  int32_t flags = ((const BlockHeader *)block)->flags;
  if ((flags & (BLOCK_REFCOUNT_MASK | BLOCK_DEALLOCATING)) == 2) {
    // The last reference: forget it before its memory goes; its dispose helper (which releases
    // captured Swift objects and may run any deinit) runs outside the lock.
    remove_block(entry);
    pthread_mutex_unlock(&queued_lock);
    real(block);
    return;
  }
  real(block);
  pthread_mutex_unlock(&queued_lock);
}

// Marks a heap block as queued on `queue` (or as a work item's, or as `source`'s handler); a stack
// block is marked when the entry point copies it.
static void will_queue_from(void *queue, const void *block, int workItem, void *source) {
  if (!block || !rgc_is_running() || rgc_thread_is_paused()) return;
  pthread_mutex_lock(&queued_lock);
  BlockEntry *entry = find_block((void *)block);
  if (entry) {
    if (queue) {
      free(entry->queue);
      entry->queue = queue_label(queue);
    }
    if (workItem) entry->workItem = workItem;
    if (source) entry->source = source;
  }
  pthread_mutex_unlock(&queued_lock);
  pending_queue = queue;
  pending_work_item = workItem;
  pending_source = source;
}

static void will_queue(void *queue, const void *block, int workItem) { will_queue_from(queue, block, workItem, NULL); }

static void did_queue(void) {
  pending_queue = NULL;
  pending_work_item = 0;
  pending_source = NULL;
}

typedef void (*QueueBlock)(void *, const void *);
typedef void (*QueueBlockAfter)(uint64_t, void *, const void *);
typedef void (*GroupQueueBlock)(void *, void *, const void *);
typedef void *(*CreateBlock)(uintptr_t, const void *);
typedef void *(*CreateBlockWithQoS)(uintptr_t, unsigned, int, const void *);

static _Atomic(void *) real_async;
static _Atomic(void *) real_barrier_async;
static _Atomic(void *) real_after;
static _Atomic(void *) real_group_async;
static _Atomic(void *) real_group_notify;
static _Atomic(void *) real_block_create;
static _Atomic(void *) real_block_create_qos;

void dispatch_async(void *queue, const void *block) {
  QueueBlock real = (QueueBlock)resolve(&real_async, "dispatch_async");
  will_queue(queue, block, 0);
  real(queue, block);
  did_queue();
}

void dispatch_barrier_async(void *queue, const void *block) {
  QueueBlock real = (QueueBlock)resolve(&real_barrier_async, "dispatch_barrier_async");
  will_queue(queue, block, 0);
  real(queue, block);
  did_queue();
}

void dispatch_after(uint64_t when, void *queue, const void *block) {
  QueueBlockAfter real = (QueueBlockAfter)resolve(&real_after, "dispatch_after");
  will_queue(queue, block, 0);
  real(when, queue, block);
  did_queue();
}

void dispatch_group_async(void *group, void *queue, const void *block) {
  GroupQueueBlock real = (GroupQueueBlock)resolve(&real_group_async, "dispatch_group_async");
  will_queue(queue, block, 0);
  real(group, queue, block);
  did_queue();
}

void dispatch_group_notify(void *group, void *queue, const void *block) {
  GroupQueueBlock real = (GroupQueueBlock)resolve(&real_group_notify, "dispatch_group_notify");
  will_queue(queue, block, 0);
  real(group, queue, block);
  did_queue();
}

// DispatchWorkItem: libdispatch copies the Swift block and wraps it in a block of its own.
static void *mark_work_item(void *created) {
  did_queue();
  if (created && rgc_is_running() && !rgc_thread_is_paused()) {
    pthread_mutex_lock(&queued_lock);
    BlockEntry *entry = find_block(created);
    if (entry) entry->workItem = RGC_BLOCK_WORK_ITEM;
    pthread_mutex_unlock(&queued_lock);
  }
  return created;
}

void *dispatch_block_create(uintptr_t flags, const void *block) {
  CreateBlock real = (CreateBlock)resolve(&real_block_create, "dispatch_block_create");
  will_queue(NULL, block, RGC_BLOCK_WORK_ITEM);
  return mark_work_item(real(flags, block));
}

void *dispatch_block_create_with_qos_class(uintptr_t flags, unsigned qos, int priority, const void *block) {
  CreateBlockWithQoS real =
      (CreateBlockWithQoS)resolve(&real_block_create_qos, "dispatch_block_create_with_qos_class");
  will_queue(NULL, block, RGC_BLOCK_WORK_ITEM);
  return mark_work_item(real(flags, qos, priority, block));
}

// A dispatch source keeps its handlers until they are replaced or the source is cancelled: the
// block (copied by libdispatch, or a DispatchWorkItem's block it retains) is marked as the handler.
typedef void (*SetHandler)(void *, const void *);
static _Atomic(void *) real_set_event_handler;
static _Atomic(void *) real_set_cancel_handler;
static _Atomic(void *) real_set_registration_handler;

// Forgets that the blocks marked as `source`'s handlers of `kind` (any kind when 0) are its handlers.
static void unmark_handlers(void *source, int kind) {
  if (atomic_load_explicit(&tracked_blocks, memory_order_acquire) == 0) return;
  pthread_mutex_lock(&queued_lock);
  for (uint64_t index = 0; index < block_capacity; index++) {
    BlockEntry *entry = &blocks[index];
    if (!entry->block || entry->block == DELETED || entry->source != source) continue;
    if (kind == 0 || entry->workItem == kind) entry->source = NULL;
  }
  pthread_mutex_unlock(&queued_lock);
}

static void set_handler(_Atomic(void *) *slot, const char *name, int kind, void *source, const void *handler) {
  SetHandler real = (SetHandler)resolve(slot, name);
  // The new handler replaces the source's previous one of this kind.
  if (source) unmark_handlers(source, kind);
  will_queue_from(NULL, handler, kind, source);
  real(source, handler);
  did_queue();
}

void dispatch_source_set_event_handler(void *source, const void *handler) {
  set_handler(&real_set_event_handler, "dispatch_source_set_event_handler", RGC_BLOCK_SOURCE_EVENT_HANDLER,
              source, handler);
}

void dispatch_source_set_cancel_handler(void *source, const void *handler) {
  set_handler(&real_set_cancel_handler, "dispatch_source_set_cancel_handler", RGC_BLOCK_SOURCE_CANCEL_HANDLER,
              source, handler);
}

void dispatch_source_set_registration_handler(void *source, const void *handler) {
  set_handler(&real_set_registration_handler, "dispatch_source_set_registration_handler",
              RGC_BLOCK_SOURCE_REGISTRATION_HANDLER, source, handler);
}

typedef void (*CancelSource)(void *);
static _Atomic(void *) real_source_cancel;

// A cancelled source no longer calls its event and registration handlers (libdispatch releases
// them once the cancellation completes); its cancel handler is kept until it has run.
void dispatch_source_cancel(void *source) {
  CancelSource real = (CancelSource)resolve(&real_source_cancel, "dispatch_source_cancel");
  if (source) {
    unmark_handlers(source, RGC_BLOCK_SOURCE_EVENT_HANDLER);
    unmark_handlers(source, RGC_BLOCK_SOURCE_REGISTRATION_HANDLER);
  }
  real(source);
}

size_t rgc_source_handlers(const void *source, const void **handlers, int32_t *kinds, size_t capacity) {
  if (!source || atomic_load_explicit(&tracked_blocks, memory_order_acquire) == 0) return 0;
  size_t found = 0;
  pthread_mutex_lock(&queued_lock);
  for (uint64_t index = 0; index < block_capacity && found < capacity; index++) {
    BlockEntry *entry = &blocks[index];
    if (!entry->block || entry->block == DELETED || entry->source != source) continue;
    // Resolved already (a recorded block went through _Block_copy): no dlsym here, which a forked
    // child must not do.
    BlockCopy copy = (BlockCopy)resolve(&real_block_copy, "_Block_copy");
    // A recorded block is alive while its entry exists (its last release removes the entry under
    // this lock first): copying a heap block only adds a reference, given back by _Block_release.
    handlers[found] = copy(entry->block);
    kinds[found] = entry->workItem;
    found++;
  }
  pthread_mutex_unlock(&queued_lock);
  return found;
}

void rgc_release_handler(const void *block) { _Block_release(block); }

// MARK: - Tasks

typedef struct {
  void *task;
  void *context;
} TaskAndContext;

typedef TaskAndContext (*TaskCreate)(size_t, void *, const void *, void *, void *) __attribute__((swiftcall));
static _Atomic(void *) real_task_create;

// With the lock held: forgets tasks whose closure context has begun to deinitialise (the task
// released it: it finished).
static void sweep_tasks(void) {
  uint64_t kept = 0;
  for (uint64_t index = 0; index < task_count; index++) {
    TaskEntry *entry = &tasks[index];
    if (swift_isDeallocating(entry->context)) {
      swift_unownedRelease(entry->context);
      free(entry->frames);
      continue;
    }
    tasks[kept++] = *entry;
  }
  task_count = kept;
  tasks_after_sweep = kept < 16 ? 16 : kept;
}

static void record_task(void *task, void *context, void *entry) {
  void *frames[TASK_FRAMES + 1];
  int count = backtrace(frames + 1, TASK_FRAMES);
  void **copy = malloc(sizeof(void *) * (size_t)(count + 1));
  if (copy) {
    memcpy(copy + 1, frames + 1, sizeof(void *) * (size_t)count);
    copy[0] = (void *)(uintptr_t)count;
  }
  pthread_mutex_lock(&queued_lock);
  if (task_count >= 2 * tasks_after_sweep) sweep_tasks();
  if (task_count == task_capacity) {
    uint64_t capacity = task_capacity ? task_capacity * 2 : 64;
    TaskEntry *grown = realloc(tasks, capacity * sizeof(TaskEntry));
    if (!grown) {
      pthread_mutex_unlock(&queued_lock);
      free(copy);
      return;
    }
    tasks = grown;
    task_capacity = capacity;
  }
  swift_unownedRetain(context);
  tasks[task_count++] = (TaskEntry){task, context, entry, copy,
                                    atomic_fetch_add_explicit(&next_queued_sequence, 1, memory_order_relaxed)};
  pthread_mutex_unlock(&queued_lock);
}

__attribute__((swiftcall)) TaskAndContext swift_task_create(size_t flags, void *options, const void *resultType,
                                                           void *entry, void *context) {
  TaskCreate real = (TaskCreate)resolve(&real_task_create, "swift_task_create");
  // The task is recorded by its closure context, which it holds until it finishes. Only when the
  // task is given the context's only reference does "the context is alive" mean "the task has not
  // finished": nothing else can take a reference to a context only a task holds.
  bool recorded = context && rgc_is_running() && !rgc_thread_is_paused() && swift_retainCount(context) == 1;
  TaskAndContext created = real(flags, options, resultType, entry, context);
  if (recorded && created.task) record_task(created.task, context, entry);
  return created;
}

// MARK: - Fork

// A forked child (`retainers(isolating:)`, a forked walk) has one thread: the lock must not be left
// held there by a thread that does not exist in it.
static void before_fork(void) { pthread_mutex_lock(&queued_lock); }
static void after_fork_in_parent(void) { pthread_mutex_unlock(&queued_lock); }
// The child's thread has another thread id than the one that took the lock (glibc's recursive mutex
// refuses its unlock): the child gets the lock anew, free.
// The child's one thread does not record its own allocations either (a forked walk's or search's
// objects, which die with it): recording them, with backtraces, only slows the child down.
static void after_fork_in_child(void) {
  pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
  memcpy(&queued_lock, &fresh, sizeof fresh);
  rgc_pause_this_thread();
}

static void rgc_queued_install_fork_handlers(void) { pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); }

void rgc_queued_register_fork_handlers(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, rgc_queued_install_fork_handlers);
}

// MARK: - Queries

void rgc_lock_queued(void) { pthread_mutex_lock(&queued_lock); }
void rgc_unlock_queued(void) { pthread_mutex_unlock(&queued_lock); }

size_t rgc_collect_tasks(rgc_task_record *buffer, size_t capacity) {
  sweep_tasks();
  for (uint64_t index = 0; index < task_count && index < capacity; index++) {
    TaskEntry *entry = &tasks[index];
    buffer[index] = (rgc_task_record){entry->task, entry->context, entry->entry,
                                      entry->frames ? (void *const *)(entry->frames + 1) : NULL,
                                      entry->frames ? (int32_t)(uintptr_t)entry->frames[0] : 0, entry->sequence};
  }
  return task_count;
}

size_t rgc_collect_blocks(rgc_block_record *buffer, size_t capacity) {
  size_t found = 0;
  for (uint64_t index = 0; index < block_capacity; index++) {
    BlockEntry *entry = &blocks[index];
    if (!entry->block || entry->block == DELETED) continue;
    if (found < capacity) {
      buffer[found] = (rgc_block_record){entry->block, entry->size, entry->queue, entry->workItem, entry->sequence};
    }
    found++;
  }
  return found;
}

void rgc_forget_queued(void) {
  pthread_mutex_lock(&queued_lock);
  for (uint64_t index = 0; index < block_capacity; index++) {
    if (blocks[index].block && blocks[index].block != DELETED) remove_block(&blocks[index]);
  }
  for (uint64_t index = 0; index < task_count; index++) {
    swift_unownedRelease(tasks[index].context);
    free(tasks[index].frames);
  }
  task_count = 0;
  pthread_mutex_unlock(&queued_lock);
}

size_t rgc_allocation_size(const void *object) { return malloc_usable_size((void *)object); }
