package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestParseSentinelURL(t *testing.T) {
	fo, err := parseSentinelURL("redis-sentinel://sec%40ret@h1:26379,h2,[::1]:5000/mymaster/3?sentinel_password=sp")
	if err != nil {
		t.Fatal(err)
	}
	if fo.MasterName != "mymaster" || fo.Password != "sec@ret" || fo.Username != "" || fo.DB != 3 ||
		fo.SentinelPassword != "sp" || fo.TLSConfig != nil {
		t.Errorf("%+v", fo)
	}
	if want := []string{"h1:26379", "h2:26379", "[::1]:5000"}; !reflect.DeepEqual(fo.SentinelAddrs, want) {
		t.Errorf("sentinels %v, want %v", fo.SentinelAddrs, want)
	}
	fo, err = parseSentinelURL("rediss-sentinel://u:p@h1/m")
	if err != nil || fo.Username != "u" || fo.Password != "p" || fo.TLSConfig == nil || fo.MasterName != "m" {
		t.Errorf("%+v %v", fo, err)
	}
	for _, bad := range []string{"redis-sentinel://h1", "redis-sentinel://h1/m?x=1", "redis-sentinel:///m", "redis-sentinel://h/m/x"} {
		if _, err := parseSentinelURL(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestConnFlags(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	cf := connFlags{urls: urlList{"redis://a:1,b:2", "redis://c:3"}, cluster: true, timeout: time.Second}
	cn, err := cf.client(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	cc := cn.rdb.(*redis.ClusterClient)
	if got := cc.Options().Addrs; !reflect.DeepEqual(got, []string{"a:1", "b:2", "c:3"}) {
		t.Errorf("cluster seeds %v", got)
	}
	if cc.Options().ReadTimeout != time.Second {
		t.Errorf("--timeout not applied: %v", cc.Options().ReadTimeout)
	}

	cf = connFlags{urls: urlList{"localhost:7777"}, timeout: time.Second}
	cn, err = cf.client(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := cn.rdb.(*redis.Client).Options(); o.Addr != "localhost:7777" || cn.mode != "single" {
		t.Errorf("bare address: %+v", o)
	}
	cn.Close()

	t.Setenv("REDIS_URL", "redis://:pw@envhost:6380/2")
	cf = connFlags{timeout: time.Second}
	if !cf.configured() {
		t.Fatal("REDIS_URL not seen")
	}
	cn, err = cf.client(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := cn.rdb.(*redis.Client).Options(); o.Addr != "envhost:6380" || o.DB != 2 || o.Password != "pw" {
		t.Errorf("REDIS_URL: %+v", o)
	}
	if cn.display != "envhost:6380/2" {
		t.Errorf("display %q", cn.display)
	}
	cn.Close()

	cf = connFlags{urls: urlList{"redis://a:1", "redis://b:2"}, timeout: time.Second}
	if _, err := cf.client(nil); err == nil {
		t.Error("two addresses without --cluster: no error")
	}
	cf = connFlags{urls: urlList{"redis-sentinel://s1,s2/m"}, timeout: time.Second}
	cn, err = cf.client(nil)
	if err != nil || cn.mode != "sentinel" {
		t.Fatalf("%v %v", cn, err)
	}
	cn.Close()
	if got := redact("redis://user:secret@h:1/0"); got != "redis://user:xxx@h:1/0" {
		t.Errorf("redact: %s", got)
	}
}
