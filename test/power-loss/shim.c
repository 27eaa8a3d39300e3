/*
 * The power-loss recorder (test/power-loss/run.ts): an LD_PRELOAD library for the server under
 * test that logs every write, truncate, sync and unlink of `rooms.db` and `rooms.db-wal` in the
 * folder named by AR_PL_DIR, with the bytes written, to the file named by AR_PL_LOG. replay.ts
 * rebuilds from that log what a power cut at any moment would have left on disk.
 *
 * Each record is a 32-byte header (native byte order, little-endian on every machine this runs on):
 *   u32 kind    1 write, 2 truncate, 3 sync-start, 4 sync-end, 5 unlink
 *   u32 file    0 rooms.db, 1 rooms.db-wal
 *   u64 ts      CLOCK_MONOTONIC in ns (process.hrtime.bigint() reads the same clock)
 *   i64 offset  write: where; truncate: the new size; sync: the sync's id (start and end share it)
 *   u64 length  write: bytes that follow the header; otherwise 0
 *
 * A write is logged after the real call succeeded, with the count it returned: a record means the
 * bytes reached the page cache. A sync-start is logged before the real fsync/fdatasync and its
 * sync-end only once that returned 0, so whatever was logged before a sync-start is covered by
 * the sync when its end is logged. Records are appended under one mutex (syncs run on libuv's
 * thread pool and SQLite's checkpoint thread) with the timestamp read inside it: log order is
 * time order. The log is written with the raw syscall, so this library's own `write` never sees it.
 *
 * Without AR_PL_DIR and AR_PL_LOG every call goes straight through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { K_WRITE = 1, K_TRUNCATE = 2, K_SYNC_START = 3, K_SYNC_END = 4, K_UNLINK = 5 };

struct record {
  uint32_t kind;
  uint32_t file;
  uint64_t ts;
  int64_t offset;
  uint64_t length;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;
static char dir[PATH_MAX];
static size_t dir_len;
static uint64_t next_sync_id;

static void init(void) {
  const char *d = getenv("AR_PL_DIR");
  const char *l = getenv("AR_PL_LOG");
  if (!d || !l) return;
  /* readlink of /proc/self/fd gives canonical paths: compare against the canonical folder. */
  if (!realpath(d, dir)) return;
  dir_len = strlen(dir);
  log_fd = (int)syscall(SYS_openat, AT_FDCWD, l, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  /* Several processes may append (the server's children inherit LD_PRELOAD): ids stay distinct. */
  next_sync_id = (uint64_t)getpid() << 32;
}

static int tracing(void) {
  pthread_once(&once, init);
  return log_fd >= 0;
}

#define REAL(name)                                                             \
  static __typeof__(name) *real_##name;                                        \
  if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* 0 rooms.db, 1 rooms.db-wal, -1 anything else (the -shm is rebuilt by recovery: not traced). */
static int classify_path(const char *p) {
  if (strncmp(p, dir, dir_len) != 0 || p[dir_len] != '/') return -1;
  const char *name = p + dir_len + 1;
  if (strcmp(name, "rooms.db") == 0) return 0;
  if (strcmp(name, "rooms.db-wal") == 0) return 1;
  return -1;
}

static int classify_fd(int fd) {
  if (fd < 0 || !tracing()) return -1;
  char link[64], target[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return -1;
  target[n] = 0;
  return classify_path(target);
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void append(uint32_t kind, int file, int64_t offset, const void *data, uint64_t length) {
  int saved = errno;
  pthread_mutex_lock(&log_lock);
  struct record r = { kind, (uint32_t)file, now_ns(), offset, length };
  struct iovec v[2] = { { &r, sizeof r }, { (void *)data, length } };
  /* An O_APPEND writev of a regular file is one append; a short one (disk full) leaves a torn tail replay.ts reports. */
  (void)syscall(SYS_writev, log_fd, v, data && length ? 2 : 1);
  pthread_mutex_unlock(&log_lock);
  errno = saved;
}

static void log_iov(int file, off_t offset, const struct iovec *iov, int iovcnt, ssize_t done) {
  for (int i = 0; i < iovcnt && done > 0; i++) {
    size_t n = iov[i].iov_len < (size_t)done ? iov[i].iov_len : (size_t)done;
    if (n) append(K_WRITE, file, offset, iov[i].iov_base, n);
    offset += (off_t)n;
    done -= (ssize_t)n;
  }
}

/* pwrite and pwrite64 differ only in the offset's type (the same on 64-bit Linux): one body for both. */
#define PWRITE_LIKE(name, off_type)                                        \
  ssize_t name(int fd, const void *buf, size_t count, off_type offset) {   \
    REAL(name);                                                            \
    ssize_t n = real_##name(fd, buf, count, offset);                       \
    if (n > 0) {                                                           \
      int f = classify_fd(fd);                                             \
      if (f >= 0) append(K_WRITE, f, offset, buf, (uint64_t)n);            \
    }                                                                      \
    return n;                                                              \
  }
PWRITE_LIKE(pwrite64, off64_t)
PWRITE_LIKE(pwrite, off_t)

ssize_t write(int fd, const void *buf, size_t count) {
  REAL(write);
  int f = classify_fd(fd);
  off_t before = f >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
  ssize_t n = real_write(fd, buf, count);
  if (n > 0 && f >= 0) {
    int saved = errno;
    /* With O_APPEND the bytes went to the end, wherever the offset was. */
    int flags = fcntl(fd, F_GETFL);
    off_t at = flags >= 0 && (flags & O_APPEND) ? lseek(fd, 0, SEEK_CUR) - n : before;
    errno = saved;
    if (at >= 0) append(K_WRITE, f, at, buf, (uint64_t)n);
  }
  return n;
}

/* The same for the vectored pair. */
#define PWRITEV_LIKE(name, off_type)                                                   \
  ssize_t name(int fd, const struct iovec *iov, int iovcnt, off_type offset) {         \
    REAL(name);                                                                        \
    ssize_t n = real_##name(fd, iov, iovcnt, offset);                                  \
    if (n > 0) {                                                                       \
      int f = classify_fd(fd);                                                         \
      if (f >= 0) log_iov(f, offset, iov, iovcnt, n);                                  \
    }                                                                                  \
    return n;                                                                          \
  }
PWRITEV_LIKE(pwritev64, off64_t)
PWRITEV_LIKE(pwritev, off_t)

/* And for the truncate pair. */
#define FTRUNCATE_LIKE(name, off_type)                         \
  int name(int fd, off_type length) {                          \
    REAL(name);                                                \
    int rc = real_##name(fd, length);                          \
    if (rc == 0) {                                             \
      int f = classify_fd(fd);                                 \
      if (f >= 0) append(K_TRUNCATE, f, length, NULL, 0);      \
    }                                                          \
    return rc;                                                 \
  }
FTRUNCATE_LIKE(ftruncate64, off64_t)
FTRUNCATE_LIKE(ftruncate, off_t)

static int traced_sync(int fd, int (*real)(int)) {
  int f = classify_fd(fd);
  if (f < 0) return real(fd);
  int64_t id = (int64_t)__atomic_fetch_add(&next_sync_id, 1, __ATOMIC_RELAXED);
  append(K_SYNC_START, f, id, NULL, 0);
  int rc = real(fd);
  if (rc == 0) append(K_SYNC_END, f, id, NULL, 0);
  return rc;
}

int fsync(int fd) {
  REAL(fsync);
  return traced_sync(fd, real_fsync);
}

int fdatasync(int fd) {
  REAL(fdatasync);
  return traced_sync(fd, real_fdatasync);
}

int unlink(const char *path) {
  REAL(unlink);
  int f = -1;
  if (tracing()) {
    /* The folder part made canonical, as readlink gives it for an open file. */
    char parent[PATH_MAX], canon[PATH_MAX + 16];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t plen = slash ? (size_t)(slash - path) : 1;
    if (plen < sizeof parent && strlen(name) < 16) {
      if (slash) {
        memcpy(parent, path, plen);
        parent[plen] = 0;
        if (plen == 0) strcpy(parent, "/");
      } else {
        strcpy(parent, ".");
      }
      char resolved[PATH_MAX];
      if (realpath(parent, resolved)) {
        snprintf(canon, sizeof canon, "%s/%s", resolved, name);
        f = classify_path(canon);
      }
    }
  }
  int rc = real_unlink(path);
  if (rc == 0 && f >= 0) append(K_UNLINK, f, 0, NULL, 0);
  return rc;
}
