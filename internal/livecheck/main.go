// Command livecheck is the Go side of the hand-run checks against a live
// Java Redisson (Contend in ../shared/interop-java): the same modes and
// output lines as Contend's, without the PORT argument (the -addr flag
// names the server). It is run by hand next to a JVM and never by CI.
//
//	livecheck [-addr host:port] mapcacheput NAME N TTL_MS [IDLE_MS]
//	livecheck [-addr host:port] mapcachecheck NAME N [PREFIX] [--expect-gone]
//	livecheck [-addr host:port] lcmwatch NAME KEY SECONDS [SYNC]
//	livecheck [-addr host:port] lcmput NAME KEY N INTERVAL_MS [SYNC]
//	livecheck [-addr host:port] lcmclear NAME [SYNC]
//	livecheck [-addr host:port] [-alive 10s] adderinc NAME N
//	livecheck [-addr host:port] [-alive 10s] dadderinc NAME N [STEP]
//	livecheck [-addr host:port] [-timeout 60s] addersum NAME
//	livecheck [-addr host:port] [-timeout 60s] daddersum NAME
//	livecheck [-addr host:port] bloomadd NAME N EXPECTED FPP [PREFIX [CODEC]]
//	livecheck [-addr host:port] bloomcheck NAME N PREFIX [CODEC]
//	livecheck [-addr host:port] spincounter NAME N THREADS
//	livecheck [-addr host:port] nrcounter NAME N THREADS
//	livecheck [-addr host:port] nrfaircounter NAME N THREADS
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
)

// Msg is Contend's value class, org.goredisson.interop.Msg.
type Msg struct {
	ID   int64  `json:"id"`
	From string `json:"from"`
	Text string `json:"text"`
}

// jsonCodec is Contend's JSON: Redisson's JsonJacksonCodec with Msg known.
func jsonCodec() codec.Codec {
	return codec.JsonJackson(codec.NewTypes().MustRegister("org.goredisson.interop.Msg", Msg{}))
}

func now() int64 { return time.Now().UnixMilli() }

func out(format string, a ...any) { fmt.Printf(format+"\n", a...) }

// problem prints a violation; the exit code becomes 2.
type checker struct{ failed bool }

func (c *checker) problem(format string, a ...any) {
	c.failed = true
	out(format, a...)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the Redis server")
	var tm timing
	flag.DurationVar(&tm.alive, "alive", 10*time.Second, "how long [d]adderinc stays to answer sums (Contend's contend.aliveSec)")
	flag.DurationVar(&tm.wait, "timeout", 60*time.Second, "how long [d]addersum waits (Contend's contend.timeoutSec)")
	flag.Parse()
	args := flag.Args()
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: livecheck [-addr host:port] MODE NAME ...")
		os.Exit(1)
	}
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	c, err := redisson.New(rdb)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ck := &checker{}
	err = run(context.Background(), c, ck, tm, args[0], args[1], args[2:])
	c.Close()
	rdb.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out("done")
	if ck.failed {
		os.Exit(2)
	}
}

func run(ctx context.Context, c *redisson.Client, ck *checker, tm timing, mode, name string, a []string) error {
	if known, err := runObjects(ctx, c, ck, tm, mode, name, a); known {
		return err
	}
	if known, err := runLocks(ctx, c, ck, mode, name, a); known {
		return err
	}
	switch mode {
	case "mapcacheput":
		return mapCachePut(ctx, c, name, a)
	case "mapcachecheck":
		return mapCacheCheck(ctx, c, ck, name, a)
	}
	return runLocal(ctx, c, ck, mode, name, a)
}

func atoi(a []string, i int, def int64) (int64, error) {
	if len(a) <= i {
		return def, nil
	}
	return strconv.ParseInt(a[i], 10, 64)
}

// without returns a without flag and whether it was there.
func without(a []string, flag string) ([]string, bool) {
	i := slices.Index(a, flag)
	if i < 0 {
		return a, false
	}
	return slices.Delete(slices.Clone(a), i, i+1), true
}
