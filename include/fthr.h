/* fthr.h: fthr's own extensions to the POSIX threads API.
 *
 * Programs need nothing from this header to use fthr: the POSIX calls come
 * from the system <pthread.h>. It declares what only fthr has.
 */
#ifndef FTHR_H
#define FTHR_H

#ifdef __cplusplus
extern "C" {
#endif

/* The fthr release this process runs, e.g. "0.1.0". A program can look this
 * symbol up with dlsym(RTLD_DEFAULT, "fthr_version") to learn whether fthr
 * is loaded (linked or preloaded) at all. */
const char *fthr_version(void);

#ifdef __cplusplus
}
#endif

#endif
