/* fuzz_corpus: LLVMFuzzerTestOneInput (fuzz_pipeline.c) over files, without libFuzzer, so that
 * every compiler runs the seed corpus and the reproducers as a test.
 *     fuzz_corpus FILE_OR_DIR...   (directories: every regular file in them) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return 1;
    uint8_t *exact = malloc(len ? len : 1); /* exactly len bytes, for the sanitizers */
    if (len) memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0, errors = 0;
    for (int a = 1; a < argc; a++) {
        struct stat sb;
        if (stat(argv[a], &sb) != 0) {
            perror(argv[a]);
            errors++;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            errors += run_file(argv[a]);
            files++;
            continue;
        }
        DIR *dir = opendir(argv[a]);
        struct dirent *ent;
        while (dir && (ent = readdir(dir))) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], ent->d_name);
            if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
            errors += run_file(path);
            files++;
        }
        if (dir) closedir(dir);
    }
    printf("fuzz_corpus: %d inputs, %d unreadable\n", files, errors);
    return errors || files == 0;
}
