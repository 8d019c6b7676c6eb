package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// sharedCounter is a plain, NON-atomic uint64 in a file that every worker
// process of the contended scenario maps into memory. Each critical section
// reads it and writes it back plus one; if two holders ever overlapped, one
// update would be lost, so final value == acquisitions proves mutual
// exclusion across processes (and within one).
type sharedCounter struct {
	mem []byte
	p   *uint64
}

// createSharedCounter makes a zeroed counter file.
func createSharedCounter(dir string) (string, error) {
	f, err := os.CreateTemp(dir, "bench-counter-")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := f.Truncate(int64(os.Getpagesize())); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// readSharedCounter returns the counter's value.
func readSharedCounter(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(b) < 8 {
		return 0, fmt.Errorf("counter file %s is short", path)
	}
	return binary.NativeEndian.Uint64(b[:8]), nil
}

func openSharedCounter(path string) (*sharedCounter, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mem, err := syscall.Mmap(int(f.Fd()), 0, os.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return &sharedCounter{mem: mem, p: (*uint64)(unsafe.Pointer(&mem[0]))}, nil
}

// increment is the critical section: a non-atomic read-modify-write. With
// widen, a 20 µs spin between read and write makes overlaps show.
func (c *sharedCounter) increment(widen bool) {
	v := *c.p
	if widen {
		spin(20 * time.Microsecond)
	}
	*c.p = v + 1
}

func (c *sharedCounter) close() { _ = syscall.Munmap(c.mem) }
