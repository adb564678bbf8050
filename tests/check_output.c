/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of core/output and core/json: a regular file replaced by a
 * rename (a reader holding the old file keeps it), symbolic links written
 * through, /dev/null and a FIFO written directly, "-" to standard output, an
 * unwritable directory failing with the path named and the old file kept, an
 * aborted stream leaving no trace, a check that writes nothing, the temporary
 * file of a killed writer removed by the next write (a live writer's kept, a
 * link at its name neither followed nor removed), and the JSON adders' exact
 * text.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/json.h"
#include "core/output.h"

static char *tmpdir;

static void
setup(void)
{
    tmpdir = g_dir_make_tmp("weft-output-XXXXXX", NULL);
    ck_assert_ptr_nonnull(tmpdir);
}

static void
teardown(void)
{
    /* one level of files and links, or a directory holding them */
    g_autoptr(GDir) d = g_dir_open(tmpdir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
        g_autofree char *p = g_build_filename(tmpdir, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK)) {
            g_chmod(p, 0755);
            g_autoptr(GDir) sub = g_dir_open(p, 0, NULL);
            const char *s;
            while (sub != NULL && (s = g_dir_read_name(sub)) != NULL) {
                g_autofree char *q = g_build_filename(p, s, NULL);
                g_unlink(q);
            }
            g_rmdir(p);
        } else {
            g_unlink(p);
        }
    }
    g_rmdir(tmpdir);
    g_clear_pointer(&tmpdir, g_free);
}

static char *
in_tmp(const char *name)
{
    return g_build_filename(tmpdir, name, NULL);
}

static char *
contents(const char *path)
{
    char *text = NULL;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(g_file_get_contents(path, &text, NULL, &err), "%s", err ? err->message : "");
    return text;
}

static gint
name_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names in @dir, sorted and joined by spaces: a temporary file left behind shows here. */
static char *
listing(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    ck_assert_ptr_nonnull(d);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        g_ptr_array_add(names, g_strdup(name));
    }
    g_ptr_array_sort(names, name_cmp);
    g_ptr_array_add(names, NULL);
    return g_strjoinv(" ", (char **)names->pdata);
}

/* ---- regular files ------------------------------------------------------------------ */

START_TEST(test_regular_file_is_replaced_by_a_rename)
{
    g_autofree char *path = in_tmp("summary.json");
    ck_assert(g_file_set_contents(path, "old contents\n", -1, NULL));
    /* a reader that opened the old file keeps reading it: the new one is another inode */
    int fd = g_open(path, O_RDONLY, 0);
    ck_assert_int_ge(fd, 0);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_output_write(path, "new\n", -1, &err), "%s", err ? err->message : "");
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "new\n");
    char old[32] = {0};
    ck_assert_int_eq(read(fd, old, sizeof old - 1), 13);
    ck_assert_str_eq(old, "old contents\n");
    close(fd);
    /* mode 0644 less the umask, and no temporary file left beside it */
    mode_t mask = umask(0);
    umask(mask);
    GStatBuf st;
    ck_assert_int_eq(g_stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0644 & ~mask);
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "summary.json");
}
END_TEST

START_TEST(test_new_file_with_nul_bytes_and_empty_file)
{
    g_autofree char *path = in_tmp("rank.0.et");
    g_autoptr(GError) err = NULL;
    ck_assert(weft_output_write(path, "a\0b", 3, &err));
    char *text = NULL;
    gsize len = 0;
    ck_assert(g_file_get_contents(path, &text, &len, NULL));
    ck_assert_uint_eq(len, 3);
    ck_assert_mem_eq(text, "a\0b", 3);
    g_free(text);
    ck_assert(weft_output_write(path, "", 0, &err));
    ck_assert(g_file_get_contents(path, &text, &len, NULL));
    ck_assert_uint_eq(len, 0);
    g_free(text);
}
END_TEST

/* ---- symbolic links ----------------------------------------------------------------- */

START_TEST(test_symlink_is_written_through_to_its_target)
{
    g_autofree char *target = in_tmp("target.csv");
    g_autofree char *link = in_tmp("link.csv");
    ck_assert(g_file_set_contents(target, "old\n", -1, NULL));
    ck_assert_int_eq(symlink("target.csv", link), 0); /* relative: read from the link's directory */
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_output_write(link, "new\n", -1, &err), "%s", err ? err->message : "");
    GStatBuf st;
    ck_assert_int_eq(g_lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    g_autofree char *points = g_file_read_link(link, NULL);
    ck_assert_str_eq(points, "target.csv");
    g_autofree char *now = contents(target);
    ck_assert_str_eq(now, "new\n");
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "link.csv target.csv");
}
END_TEST

START_TEST(test_symlink_chain_and_dangling_link_create_the_target)
{
    /* a -> b -> c (absent): c is created, a and b stay links */
    g_autofree char *a = in_tmp("a");
    g_autofree char *b = in_tmp("b");
    g_autofree char *c = in_tmp("c");
    ck_assert_int_eq(symlink(b, a), 0); /* absolute */
    ck_assert_int_eq(symlink("c", b), 0);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_output_write(a, "x", -1, &err), "%s", err ? err->message : "");
    g_autofree char *now = contents(c);
    ck_assert_str_eq(now, "x");
    ck_assert(g_file_test(a, G_FILE_TEST_IS_SYMLINK));
    ck_assert(g_file_test(b, G_FILE_TEST_IS_SYMLINK));
}
END_TEST

START_TEST(test_symlink_loop_is_an_error)
{
    g_autofree char *a = in_tmp("a");
    g_autofree char *b = in_tmp("b");
    ck_assert_int_eq(symlink("b", a), 0);
    ck_assert_int_eq(symlink("a", b), 0);
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_output_write(a, "x", -1, &err));
    ck_assert(g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_LOOP));
    ck_assert_ptr_nonnull(strstr(err->message, a));
    ck_assert(g_file_test(a, G_FILE_TEST_IS_SYMLINK));
}
END_TEST

/* ---- what is not a regular file ----------------------------------------------------- */

START_TEST(test_dev_null_stays_a_character_device)
{
    if (access("/dev/null", W_OK) != 0) {
        printf("dev_null_stays_a_character_device: skipped (/dev/null is not writable)\n");
        return;
    }
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_output_write("/dev/null", "discarded\n", -1, &err), "%s",
                  err ? err->message : "");
    g_autoptr(weft_output_t) out = weft_output_open("/dev/null", &err);
    ck_assert_ptr_nonnull(out);
    fputs("discarded too\n", weft_output_stream(out));
    ck_assert(weft_output_commit(g_steal_pointer(&out), &err));
    GStatBuf st;
    ck_assert_int_eq(g_lstat("/dev/null", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

typedef struct {
    const char *path;
    GString *got;
    GMutex lock;
    GCond done_cond;
    gboolean done;
} fifo_reader_t;

static gpointer
read_fifo(gpointer data)
{
    fifo_reader_t *r = data;
    int fd = g_open(r->path, O_RDONLY, 0); /* blocks until the writer opens it */
    if (fd >= 0) {
        char buf[256];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0) {
            g_string_append_len(r->got, buf, n);
        }
        close(fd);
    }
    g_mutex_lock(&r->lock);
    r->done = TRUE;
    g_cond_signal(&r->done_cond);
    g_mutex_unlock(&r->lock);
    return NULL;
}

START_TEST(test_fifo_is_written_directly)
{
    g_autofree char *path = in_tmp("pipe");
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    fifo_reader_t r = {.path = path, .got = g_string_new(NULL)};
    g_mutex_init(&r.lock);
    g_cond_init(&r.done_cond);
    GThread *t = g_thread_new("fifo-reader", read_fifo, &r);
    g_autoptr(GError) err = NULL;
    /* the open blocks until the reader has the FIFO open: both sides then go on */
    ck_assert_msg(weft_output_write(path, "through the pipe\n", -1, &err), "%s",
                  err ? err->message : "");
    /* bounded: had the FIFO been renamed over, the reader would never see a writer */
    gint64 deadline = g_get_monotonic_time() + 10 * G_TIME_SPAN_SECOND;
    g_mutex_lock(&r.lock);
    while (!r.done) {
        if (!g_cond_wait_until(&r.done_cond, &r.lock, deadline)) {
            break;
        }
    }
    gboolean done = r.done;
    g_mutex_unlock(&r.lock);
    ck_assert_msg(done, "the reader did not see the end of the FIFO within 10 s");
    g_thread_join(t);
    ck_assert_str_eq(r.got->str, "through the pipe\n");
    GStatBuf st;
    ck_assert_int_eq(g_lstat(path, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "pipe");
    g_string_free(r.got, TRUE);
    g_mutex_clear(&r.lock);
    g_cond_clear(&r.done_cond);
}
END_TEST

START_TEST(test_dash_writes_to_stdout)
{
    g_autofree char *path = in_tmp("captured");
    int fd = g_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
    close(fd);
    g_autoptr(GError) err = NULL;
    gboolean ok = weft_output_write("-", "to stdout\n", -1, &err);
    g_autoptr(weft_output_t) out = weft_output_open("-", &err);
    gboolean streamed = out != NULL;
    if (streamed) {
        ck_assert_ptr_eq(weft_output_stream(out), stdout);
        fputs("streamed\n", weft_output_stream(out));
        streamed = weft_output_commit(g_steal_pointer(&out), &err);
    }
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ck_assert_msg(ok && streamed, "%s", err ? err->message : "");
    g_autofree char *got = contents(path);
    ck_assert_str_eq(got, "to stdout\nstreamed\n");
    /* stdout is still usable: the commit flushed it and did not close it */
    ck_assert_int_ne(fcntl(STDOUT_FILENO, F_GETFD), -1);
    ck_assert(!ferror(stdout));
    ck_assert(!g_file_test("-", G_FILE_TEST_EXISTS));
}
END_TEST

START_TEST(test_directory_is_an_error)
{
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_output_write(tmpdir, "x", -1, &err));
    ck_assert(g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_ISDIR));
    ck_assert_ptr_nonnull(strstr(err->message, tmpdir));
}
END_TEST

/* ---- failures keep the old file ------------------------------------------------------ */

/*
 * Writes @path in a directory the process cannot write and checks the error
 * and that @path kept "old\n"; returns a code for the reason, 0 when all holds.
 */
static int
write_in_unwritable_dir(const char *path)
{
    g_autoptr(GError) err = NULL;
    if (weft_output_write(path, "new\n", -1, &err)) {
        return 1;
    }
    if (err->domain != G_FILE_ERROR || err->code != G_FILE_ERROR_ACCES) {
        return 2;
    }
    if (strstr(err->message, path) == NULL) {
        return 3;
    }
    g_autoptr(GError) err2 = NULL;
    g_autoptr(weft_output_t) out = weft_output_open(path, &err2);
    if (out != NULL || !g_error_matches(err2, G_FILE_ERROR, G_FILE_ERROR_ACCES)) {
        return 4;
    }
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL) || strcmp(text, "old\n") != 0) {
        return 5;
    }
    return 0;
}

START_TEST(test_unwritable_directory_names_the_path_and_keeps_the_file)
{
    g_autofree char *dir = in_tmp("ro");
    ck_assert_int_eq(g_mkdir(dir, 0755), 0);
    g_autofree char *path = g_build_filename(dir, "links.csv", NULL);
    ck_assert(g_file_set_contents(path, "old\n", -1, NULL));
    ck_assert_int_eq(g_chmod(path, 0644), 0);
    if (geteuid() != 0) {
        ck_assert_int_eq(g_chmod(dir, 0555), 0);
        int rc = write_in_unwritable_dir(path);
        g_chmod(dir, 0755);
        ck_assert_int_eq(rc, 0);
    } else {
        /* root writes any directory: the write runs in a child as nobody */
        ck_assert_int_eq(g_chmod(tmpdir, 0755), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) {
                _exit(77);
            }
            _exit(write_in_unwritable_dir(path));
        }
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77) {
            printf("unwritable_directory: skipped (root cannot become uid 65534 here)\n");
        } else {
            ck_assert_int_eq(WEXITSTATUS(status), 0);
        }
    }
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "old\n");
    g_autofree char *names = listing(dir);
    ck_assert_str_eq(names, "links.csv");
}
END_TEST

START_TEST(test_missing_directory_names_the_path)
{
    g_autofree char *path = in_tmp("nodir/summary.json");
    g_autoptr(GError) err = NULL;
    ck_assert(!weft_output_write(path, "x", -1, &err));
    ck_assert(g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT));
    ck_assert_ptr_nonnull(strstr(err->message, path));
}
END_TEST

START_TEST(test_stream_abort_keeps_the_old_file_and_leaves_no_temp)
{
    g_autofree char *path = in_tmp("trace.json");
    ck_assert(g_file_set_contents(path, "old\n", -1, NULL));
    g_autoptr(GError) err = NULL;
    weft_output_t *out = weft_output_open(path, &err);
    ck_assert_ptr_nonnull(out);
    for (guint i = 0; i < 10000; i++) { /* past stdio's buffer: some bytes reach the file */
        fprintf(weft_output_stream(out), "{\"ph\":\"X\",\"ts\":%u},\n", i);
    }
    weft_output_abort(out);
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "old\n");
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "trace.json");
    /* an output dropped by g_autoptr is aborted the same way */
    {
        g_autoptr(weft_output_t) dropped = weft_output_open(path, &err);
        ck_assert_ptr_nonnull(dropped);
        fputs("half", weft_output_stream(dropped));
    }
    g_autofree char *still = contents(path);
    ck_assert_str_eq(still, "old\n");
    g_autofree char *names2 = listing(tmpdir);
    ck_assert_str_eq(names2, "trace.json");
    weft_output_abort(NULL);
}
END_TEST

START_TEST(test_stream_commit_replaces_the_file)
{
    g_autofree char *path = in_tmp("cluster.graphml");
    ck_assert(g_file_set_contents(path, "old\n", -1, NULL));
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_output_t) out = weft_output_open(path, &err);
    ck_assert_ptr_nonnull(out);
    fputs("<graphml/>\n", weft_output_stream(out));
    /* until the commit, the old file is what readers see */
    g_autofree char *before = contents(path);
    ck_assert_str_eq(before, "old\n");
    ck_assert(weft_output_commit(g_steal_pointer(&out), &err));
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "<graphml/>\n");
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "cluster.graphml");
}
END_TEST

/* ---- temporary files left by killed runs ------------------------------------------------ */

START_TEST(test_temp_of_a_killed_writer_is_removed_by_the_next_write)
{
    g_autofree char *path = in_tmp("ranks.csv");
    ck_assert(g_file_set_contents(path, "old\n", -1, NULL));
    /* a child starts writing ranks.csv and is killed before it commits */
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        weft_output_t *out = weft_output_open(path, NULL);
        if (out != NULL) {
            fputs("half a tab", weft_output_stream(out));
            fflush(weft_output_stream(out));
        }
        char c = out != NULL ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1) {
            _exit(2);
        }
        pause(); /* until killed */
        _exit(1);
    }
    close(ready[1]);
    char c = 0;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    close(ready[0]);
    ck_assert_int_eq(c, 'y');
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status));
    /* what it left: the old file and its temporary file, named after it */
    g_autofree char *left = listing(tmpdir);
    ck_assert_str_eq(left, ".ranks.csv.weft-tmp ranks.csv");
    g_autofree char *tmp = in_tmp(".ranks.csv.weft-tmp");
    g_autofree char *half = contents(tmp);
    ck_assert_str_eq(half, "half a tab");
    /* the next write of ranks.csv removes it */
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_output_write(path, "new\n", -1, &err), "%s", err ? err->message : "");
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "new\n");
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "ranks.csv");
    /* so does the next check of it (which writes nothing) */
    ck_assert(g_file_set_contents(tmp, "stale", -1, NULL));
    ck_assert(weft_output_check(path, &err));
    g_autofree char *names2 = listing(tmpdir);
    ck_assert_str_eq(names2, "ranks.csv");
}
END_TEST

START_TEST(test_temp_of_a_live_writer_is_kept)
{
    g_autofree char *path = in_tmp("links.csv");
    g_autofree char *tmp = in_tmp(".links.csv.weft-tmp");
    /* another writer holds the temporary name: its file is open and locked */
    ck_assert(g_file_set_contents(tmp, "being written", -1, NULL));
    int held = g_open(tmp, O_RDONLY, 0);
    ck_assert_int_ge(held, 0);
    ck_assert_int_eq(flock(held, LOCK_EX | LOCK_NB), 0);
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_output_t) out = weft_output_open(path, &err);
    ck_assert_ptr_nonnull(out);
    fputs("mine\n", weft_output_stream(out));
    /* this writer took a unique name beside it */
    g_autofree char *during = listing(tmpdir);
    ck_assert_msg(g_str_has_prefix(during, ".links.csv.weft-tmp .links.csv.weft-tmp-") &&
                      strlen(during) == strlen(".links.csv.weft-tmp .links.csv.weft-tmp-XXXXXX"),
                  "%s", during);
    ck_assert(weft_output_commit(g_steal_pointer(&out), &err));
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "mine\n");
    /* the live writer's file is untouched */
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, ".links.csv.weft-tmp links.csv");
    g_autofree char *theirs = contents(tmp);
    ck_assert_str_eq(theirs, "being written");
    close(held);
    /* once its writer is gone, the next write removes it */
    ck_assert(weft_output_write(path, "again\n", -1, &err));
    g_autofree char *after = listing(tmpdir);
    ck_assert_str_eq(after, "links.csv");
}
END_TEST

START_TEST(test_a_link_at_the_temp_name_is_not_followed_or_removed)
{
    g_autofree char *path = in_tmp("summary.txt");
    g_autofree char *victim = in_tmp("victim");
    g_autofree char *tmp = in_tmp(".summary.txt.weft-tmp");
    ck_assert(g_file_set_contents(victim, "keep me\n", -1, NULL));
    ck_assert_int_eq(symlink("victim", tmp), 0);
    g_autoptr(GError) err = NULL;
    ck_assert_msg(weft_output_write(path, "step\n", -1, &err), "%s", err ? err->message : "");
    g_autofree char *now = contents(path);
    ck_assert_str_eq(now, "step\n");
    g_autofree char *kept = contents(victim);
    ck_assert_str_eq(kept, "keep me\n");
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, ".summary.txt.weft-tmp summary.txt victim");
    ck_assert(g_file_test(tmp, G_FILE_TEST_IS_SYMLINK));
}
END_TEST

START_TEST(test_write_error_on_commit_is_reported)
{
    if (access("/dev/full", W_OK) != 0) {
        printf("write_error_on_commit_is_reported: skipped (no writable /dev/full)\n");
        return;
    }
    g_autoptr(GError) err = NULL;
    g_autoptr(weft_output_t) out = weft_output_open("/dev/full", &err);
    ck_assert_ptr_nonnull(out);
    fputs("no space\n", weft_output_stream(out));
    ck_assert(!weft_output_commit(g_steal_pointer(&out), &err));
    ck_assert(g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOSPC));
    ck_assert_ptr_nonnull(strstr(err->message, "/dev/full"));
}
END_TEST

START_TEST(test_check_writes_nothing_and_opens_no_fifo)
{
    g_autofree char *fresh = in_tmp("timeline.json");
    g_autofree char *pipe = in_tmp("pipe");
    g_autofree char *plain = in_tmp("plain");
    g_autofree char *under = in_tmp("plain/t.json");
    ck_assert_int_eq(mkfifo(pipe, 0600), 0);
    ck_assert(g_file_set_contents(plain, "", -1, NULL));
    g_autoptr(GError) err = NULL;
    ck_assert(weft_output_check(fresh, &err));
    ck_assert(weft_output_check("-", &err));
    ck_assert(weft_output_check(pipe, &err)); /* would block here, had it opened the FIFO */
    ck_assert(!g_file_test(fresh, G_FILE_TEST_EXISTS));
    g_autofree char *names = listing(tmpdir);
    ck_assert_str_eq(names, "pipe plain");
    /* a directory under a regular file cannot be made, by root either */
    ck_assert(!weft_output_check(under, &err));
    ck_assert(g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOTDIR));
    ck_assert_ptr_nonnull(strstr(err->message, under));
    g_clear_error(&err);
    ck_assert(!weft_output_check(tmpdir, &err));
    ck_assert(g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_ISDIR));
}
END_TEST

/* ---- JSON ---------------------------------------------------------------------------- */

START_TEST(test_json_members_and_text)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    weft_json_add_int(b, "ranks", 8);
    weft_json_add_int(b, "bytes", G_GINT64_CONSTANT(68719476736)); /* 64 GiB: past 32 bits */
    weft_json_add_double(b, "time_us", 2.5);
    weft_json_add_double(b, "busbw_GBps", 2.0); /* json-glib keeps ".0" on a whole double */
    weft_json_add_double(b, "util", 0.1);       /* "%.17g" */
    weft_json_add_double_or_null(b, "mtbf_s", INFINITY);
    weft_json_add_double_or_null(b, "sd", NAN);
    weft_json_add_double_or_null(b, "mean", 3.25);
    weft_json_add_string(b, "op", "all-reduce \"grad\"");
    weft_json_add_string(b, "name", NULL);
    weft_json_add_bool(b, "ignored", TRUE);
    weft_json_add_bool(b, "coarse", FALSE);
    json_builder_end_object(b);
    g_autofree char *pretty = weft_json_to_text(b, TRUE);
    ck_assert_str_eq(pretty, "{\n"
                             "  \"ranks\" : 8,\n"
                             "  \"bytes\" : 68719476736,\n"
                             "  \"time_us\" : 2.5,\n"
                             "  \"busbw_GBps\" : 2.0,\n"
                             "  \"util\" : 0.10000000000000001,\n"
                             "  \"mtbf_s\" : null,\n"
                             "  \"sd\" : null,\n"
                             "  \"mean\" : 3.25,\n"
                             "  \"op\" : \"all-reduce \\\"grad\\\"\",\n"
                             "  \"name\" : null,\n"
                             "  \"ignored\" : true,\n"
                             "  \"coarse\" : false\n"
                             "}\n");
    /* the compact text of the same builder: one line, no newline */
    g_autofree char *compact = weft_json_to_text(b, FALSE);
    ck_assert_str_eq(compact, "{\"ranks\":8,\"bytes\":68719476736,\"time_us\":2.5,"
                              "\"busbw_GBps\":2.0,\"util\":0.10000000000000001,\"mtbf_s\":null,"
                              "\"sd\":null,\"mean\":3.25,\"op\":\"all-reduce \\\"grad\\\"\","
                              "\"name\":null,\"ignored\":true,\"coarse\":false}");
}
END_TEST

/* Writes @text to a temporary file and parses it with weft_json_parse_file(). */
static JsonNode *
parse_text(const char *text, GError **error)
{
    g_autofree char *path = NULL;
    int fd = g_file_open_tmp("weft-json-XXXXXX", &path, NULL);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    JsonNode *root = weft_json_parse_file(path, error);
    g_unlink(path);
    return root;
}

START_TEST(test_json_parse_refuses_duplicates_and_wrapped_integers)
{
    g_autoptr(GError) err = NULL;
    /* the limits of a gint64 read back exactly; digits in strings and doubles are not integers */
    g_autoptr(JsonNode) ok = parse_text("{\"max\": 9223372036854775807,\n"
                                        " \"min\": -9223372036854775808,\n"
                                        " \"zeros\": -00000000000000000000001,\n"
                                        " \"name\": \"99999999999999999999\\\"9\",\n"
                                        " \"big\": 99999999999999999999.5, \"e\": 1e400,\n"
                                        " \"a\": {\"x\": 1}, \"b\": {\"x\": 2}}",
                                        &err);
    ck_assert_ptr_null(err);
    ck_assert_ptr_nonnull(ok);
    JsonObject *o = json_node_get_object(ok);
    ck_assert(json_object_get_int_member(o, "max") == G_MAXINT64);
    ck_assert(json_object_get_int_member(o, "min") == G_MININT64);
    ck_assert_int_eq(json_object_get_object_member(o, "b") != NULL, 1);
    /* one past each limit: json-glib alone reads 2^63 as -2^63 and 1e20 as -1 */
    g_autoptr(JsonNode) over = parse_text("{\"a\": 1,\n \"n\": 9223372036854775808}", &err);
    ck_assert_ptr_null(over);
    ck_assert(g_error_matches(err, WEFT_JSON_ERROR, WEFT_JSON_ERROR_RANGE));
    ck_assert_str_eq(err->message,
                     "line 2: integer 9223372036854775808 is beyond a 64-bit integer (|n| < 2^63)");
    g_clear_error(&err);
    g_autoptr(JsonNode) under = parse_text("[-9223372036854775809]", &err);
    ck_assert_ptr_null(under);
    ck_assert(g_error_matches(err, WEFT_JSON_ERROR, WEFT_JSON_ERROR_RANGE));
    g_clear_error(&err);
    /* a member named twice, in a nested object: json-glib would keep the second silently */
    g_autoptr(JsonNode) dup = parse_text("{\"a\": {\"x\": 1,\n\"y\": 2,\n\"x\": 3}}", &err);
    ck_assert_ptr_null(dup);
    ck_assert(g_error_matches(err, WEFT_JSON_ERROR, WEFT_JSON_ERROR_DUPLICATE));
    ck_assert_str_eq(err->message,
                     "line 3: member \"x\" is given twice in one object (JSON keeps only one)");
    g_clear_error(&err);
    /* not JSON: json-glib's line and column, without its "<data>" name */
    g_autoptr(JsonNode) bad = parse_text("{\"a\": ]", &err);
    ck_assert_ptr_null(bad);
    ck_assert(g_error_matches(err, WEFT_JSON_ERROR, WEFT_JSON_ERROR_PARSE));
    ck_assert(g_str_has_prefix(err->message, "line 1:"));
    g_clear_error(&err);
    /* not text: json-glib's message has no position, and none is made up */
    g_autoptr(JsonNode) binary = parse_text("\x12\xff\xfe\x01", &err);
    ck_assert_ptr_null(binary);
    ck_assert(g_error_matches(err, WEFT_JSON_ERROR, WEFT_JSON_ERROR_PARSE));
    ck_assert(!g_str_has_prefix(err->message, "line "));
    g_clear_error(&err);
    /* a missing file is the file's own error */
    g_autoptr(JsonNode) none = weft_json_parse_file("/nonexistent/weft.json", &err);
    ck_assert_ptr_null(none);
    ck_assert(err->domain == G_FILE_ERROR);
}
END_TEST

static Suite *
output_suite(void)
{
    Suite *s = suite_create("output");
    TCase *tc = tcase_create("files");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_regular_file_is_replaced_by_a_rename);
    tcase_add_test(tc, test_new_file_with_nul_bytes_and_empty_file);
    tcase_add_test(tc, test_symlink_is_written_through_to_its_target);
    tcase_add_test(tc, test_symlink_chain_and_dangling_link_create_the_target);
    tcase_add_test(tc, test_symlink_loop_is_an_error);
    tcase_add_test(tc, test_dev_null_stays_a_character_device);
    tcase_add_test(tc, test_fifo_is_written_directly);
    tcase_add_test(tc, test_dash_writes_to_stdout);
    tcase_add_test(tc, test_directory_is_an_error);
    tcase_add_test(tc, test_unwritable_directory_names_the_path_and_keeps_the_file);
    tcase_add_test(tc, test_missing_directory_names_the_path);
    tcase_add_test(tc, test_stream_abort_keeps_the_old_file_and_leaves_no_temp);
    tcase_add_test(tc, test_stream_commit_replaces_the_file);
    tcase_add_test(tc, test_write_error_on_commit_is_reported);
    tcase_add_test(tc, test_temp_of_a_killed_writer_is_removed_by_the_next_write);
    tcase_add_test(tc, test_temp_of_a_live_writer_is_kept);
    tcase_add_test(tc, test_a_link_at_the_temp_name_is_not_followed_or_removed);
    tcase_add_test(tc, test_check_writes_nothing_and_opens_no_fifo);
    suite_add_tcase(s, tc);
    tc = tcase_create("json");
    tcase_add_test(tc, test_json_members_and_text);
    tcase_add_test(tc, test_json_parse_refuses_duplicates_and_wrapped_integers);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    /* no time limit: a loaded machine must not fail a correct test (CK_DEFAULT_TIMEOUT=N
     * in the environment sets one) */
    g_setenv("CK_DEFAULT_TIMEOUT", "0", FALSE);
    SRunner *sr = srunner_create(output_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
