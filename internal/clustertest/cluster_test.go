package clustertest

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"
)

// TestFreePortsDistinct: ports handed to parallel control planes never
// repeat within a process, even across calls.
func TestFreePortsDistinct(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		ports, err := freePorts(4)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}

// TestWaitKwokRefusesStranger: a kubelet port already held by a plain
// HTTP server (another test's etcd, say) must not be taken for kwok's.
// Before, a listening port was enough, and log requests went to the stranger.
func TestWaitKwokRefusesStranger(t *testing.T) {
	bin := RequireBin(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = conn.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			conn.Close()
		}
	}()
	c := &Cluster{Bin: bin, Dir: t.TempDir(), exited: map[string]chan struct{}{}}
	if err := c.writeKeys(); err != nil {
		t.Fatal(err)
	}
	// kwok is "running" (its channel open): the stranger must still be refused.
	c.exited["kwok"] = make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	addr := "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := c.waitKwok(ctx, addr); err == nil {
		t.Fatal("waitKwok accepted a server without kwok's certificate")
	}
	// Once kwok has exited (it could not bind), waiting stops at once with errExited.
	close(c.exited["kwok"])
	if err := c.waitKwok(context.Background(), addr); !errors.Is(err, errExited) {
		t.Fatalf("waitKwok after kwok exited = %v, want errExited", err)
	}
}
