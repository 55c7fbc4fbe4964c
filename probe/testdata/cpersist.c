/* persist() fsyncs; built with frame pointers (-fno-omit-frame-pointer).
 * Every fsync's call site must name persist (cpersist.c:17) <- main (cpersist.c:27). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static int persist(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, "hello", 5) != 5) {
		close(fd);
		return -1;
	}
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	char path[4096];
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/f%d", argc > 1 ? argv[1] : "/tmp", i);
		if (persist(path) != 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
