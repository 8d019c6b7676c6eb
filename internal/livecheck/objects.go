package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/javanum"
)

// timing is how long the adder modes stay and wait: Contend's
// contend.aliveSec and contend.timeoutSec, here -alive and -timeout.
type timing struct{ alive, wait time.Duration }

// runObjects runs the adder and Bloom filter modes:
//
//	adderinc NAME N, dadderinc NAME N [STEP]: Increment (Add(STEP),
//	default 1) N times on one instance, "incremented <N> <ts>", stay
//	alive answering sums for -alive, Close, "leaving <ts>";
//	addersum NAME, daddersum NAME: Sum within -timeout, "sum <v> <ts>"
//	(the double as Java prints it), or the violation "timeout <ts>";
//	bloomadd NAME N EXPECTED FPP [PREFIX [CODEC]]: TryInit, then
//	Add("<PREFIX><i>"), i = 1..N (PREFIX e, CODEC string or json);
//	bloomcheck NAME N PREFIX [CODEC]: Contains("<PREFIX><i>"), i = 1..N.
//
// It reports false for a mode it does not know.
func runObjects(ctx context.Context, c *redisson.Client, ck *checker, tm timing, mode, name string, a []string) (bool, error) {
	switch mode {
	case "adderinc", "dadderinc":
		return true, adderInc(c, tm, mode == "dadderinc", name, a)
	case "addersum", "daddersum":
		return true, adderSum(ctx, c, ck, tm, mode == "daddersum", name)
	case "bloomadd":
		return true, bloomAdd(ctx, c, name, a)
	case "bloomcheck":
		return true, bloomCheck(ctx, c, name, a)
	}
	return false, nil
}

func adderInc(c *redisson.Client, tm timing, double bool, name string, a []string) error {
	n, err := atoi(a, 0, -1)
	if err != nil || n < 0 {
		return fmt.Errorf("[d]adderinc NAME N [STEP]")
	}
	var closer interface{ Close() error }
	if double {
		step := 1.0
		if len(a) > 1 {
			if step, err = strconv.ParseFloat(a[1], 64); err != nil {
				return err
			}
		}
		ad := c.DoubleAdder(name)
		for range n {
			ad.Add(step)
		}
		closer = ad
	} else {
		ad := c.LongAdder(name)
		for range n {
			ad.Increment()
		}
		closer = ad
	}
	out("incremented %d %d", n, now())
	// The count lives in this process: it reaches Redis only when a sum
	// asks for it, so the instance stays to answer.
	time.Sleep(tm.alive)
	if err := closer.Close(); err != nil {
		return err
	}
	out("leaving %d", now())
	return nil
}

func adderSum(ctx context.Context, c *redisson.Client, ck *checker, tm timing, double bool, name string) error {
	ctx, cancel := context.WithTimeout(ctx, tm.wait)
	defer cancel()
	var (
		s   string
		err error
	)
	if double {
		ad := c.DoubleAdder(name)
		var f float64
		f, err = ad.Sum(ctx)
		s = javanum.JavaDouble(f)
		_ = ad.Close()
	} else {
		ad := c.LongAdder(name)
		var n int64
		n, err = ad.Sum(ctx)
		s = strconv.FormatInt(n, 10)
		_ = ad.Close()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		ck.problem("timeout %d", now())
		return nil
	case err != nil:
		return err
	}
	out("sum %s %d", s, now())
	return nil
}

// bloomCodec is Contend's CODEC argument: string (the default) or json.
func bloomCodec(a []string, i int) (codec.Codec, error) {
	if len(a) <= i || a[i] == "string" {
		return codec.String(), nil
	}
	if a[i] == "json" {
		return jsonCodec(), nil
	}
	return nil, fmt.Errorf("string|json: %s", a[i])
}

func bloomAdd(ctx context.Context, c *redisson.Client, name string, a []string) error {
	if len(a) < 3 {
		return fmt.Errorf("bloomadd NAME N EXPECTED FPP [PREFIX [CODEC]]")
	}
	n, err1 := atoi(a, 0, 0)
	expected, err2 := atoi(a, 1, 0)
	fpp, err3 := strconv.ParseFloat(a[2], 64)
	cd, err4 := bloomCodec(a, 4)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return err
	}
	prefix := "e"
	if len(a) > 3 {
		prefix = a[3]
	}
	bf := redisson.NewBloomFilter[any](c, name, cd)
	ok, err := bf.TryInit(ctx, expected, fpp)
	if err != nil {
		return err
	}
	out("init %t %d", ok, now())
	fresh := 0
	for i := int64(1); i <= n; i++ {
		added, err := bf.Add(ctx, prefix+strconv.FormatInt(i, 10))
		if err != nil {
			return err
		}
		if added {
			fresh++
		}
	}
	out("added %d %d", n, now())
	out("new %d", fresh)
	cfg, err := bloomConfig(ctx, bf)
	if err != nil {
		return err
	}
	out("config %s", cfg)
	return nil
}

func bloomCheck(ctx context.Context, c *redisson.Client, name string, a []string) error {
	if len(a) < 2 {
		return fmt.Errorf("bloomcheck NAME N PREFIX [CODEC]")
	}
	n, err := atoi(a, 0, 0)
	if err != nil {
		return err
	}
	cd, err := bloomCodec(a, 2)
	if err != nil {
		return err
	}
	bf := redisson.NewBloomFilter[any](c, name, cd)
	present := 0
	for i := int64(1); i <= n; i++ {
		ok, err := bf.Contains(ctx, a[1]+strconv.FormatInt(i, 10))
		if err != nil {
			return err
		}
		if ok {
			present++
		}
	}
	out("checked %d present %d %d", n, present, now())
	cfg, err := bloomConfig(ctx, bf)
	if err != nil {
		return err
	}
	count, err := bf.Count(ctx)
	if err != nil {
		return err
	}
	out("config %s count %d", cfg, count)
	return nil
}

// bloomFilter is what bloomConfig reads.
type bloomFilter interface {
	Size(context.Context) (int64, error)
	HashIterations(context.Context) (int, error)
	ExpectedInsertions(context.Context) (int64, error)
	FalseProbability(context.Context) (float64, error)
}

// bloomConfig is Contend's "size <bits> hashes <k> expected <n> fpp <p>".
func bloomConfig(ctx context.Context, bf bloomFilter) (string, error) {
	size, err1 := bf.Size(ctx)
	hashes, err2 := bf.HashIterations(ctx)
	expected, err3 := bf.ExpectedInsertions(ctx)
	fpp, err4 := bf.FalseProbability(ctx)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return "", err
	}
	return fmt.Sprintf("size %d hashes %d expected %d fpp %s", size, hashes, expected, javanum.JavaDouble(fpp)), nil
}
