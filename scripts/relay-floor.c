/*
 * The least a stdio relay between an MCP client and its server can add:
 * it starts the server (its arguments), copies the client's bytes to the
 * server and the server's back, and does nothing else. `bench-mcp.py
 * --floor` builds it with `cc` and measures it beside `toolgate mcp`, so
 * that the gateway's added latency can be read against what two more pipe
 * hops cost on the machine at hand.
 */
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

static int copy(int from, int to) {
    char buf[65536];
    ssize_t n = read(from, buf, sizeof buf);
    if (n <= 0) return -1;
    for (ssize_t done = 0; done < n;) {
        ssize_t w = write(to, buf + done, (size_t)(n - done));
        if (w < 0) return -1;
        done += w;
    }
    return 0;
}

int main(int argc, char **argv) {
    int in[2], out[2];
    if (argc < 2 || pipe(in) || pipe(out)) return 2;
    if (fork() == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    struct pollfd p[2] = {{0, POLLIN, 0}, {out[0], POLLIN, 0}};
    for (;;) {
        if (poll(p, 2, -1) < 0) return 1;
        if (p[0].revents && copy(0, in[1])) {
            close(in[1]);
            p[0].fd = -1;
        }
        if (p[1].revents && copy(out[0], 1)) return 0;
    }
}
