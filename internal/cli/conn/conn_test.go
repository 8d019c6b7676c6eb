package conn

import (
	"reflect"
	"strings"
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
	// go-redis' parameters pass through to redis.ParseFailoverURL.
	fo, err = parseSentinelURL("redis-sentinel://h1/m?db=2&sentinel_username=su&sentinel_password=sp&dial_timeout=2s")
	if err != nil || fo.DB != 2 || fo.SentinelUsername != "su" || fo.SentinelPassword != "sp" ||
		fo.DialTimeout != 2*time.Second || !reflect.DeepEqual(fo.SentinelAddrs, []string{"h1:26379"}) {
		t.Errorf("%+v %v", fo, err)
	}
	// go-redis' own form is redis.ParseFailoverURL's.
	fo, err = parseSentinelURL("redis://su:sp@h1:5000/1?master_name=m&addr=h2:5001&password=mp")
	if err != nil || fo.MasterName != "m" || fo.SentinelUsername != "su" || fo.SentinelPassword != "sp" ||
		fo.Password != "mp" || fo.DB != 1 || !reflect.DeepEqual(fo.SentinelAddrs, []string{"h1:5000", "h2:5001"}) {
		t.Errorf("go-redis form: %+v %v", fo, err)
	}
	for _, bad := range []string{
		"redis-sentinel://h1",                 // no master name
		"redis-sentinel://h1/m?x=1",           // unknown parameter
		"redis-sentinel:///m",                 // no sentinel
		"redis-sentinel://h/m/x",              // bad database
		"redis-sentinel://h/m/1/2",            // path too long
		"redis-sentinel://:::/m",              // IPv6 without brackets
		"redis-sentinel://h1,h2:0/m",          // bad port
		"redis-sentinel://h1/m?master_name=n", // master name twice
		"redis-sentinel://p@h1/m?password=q",  // password twice
		"redis-sentinel://h 1/m",              // bad host
		"redis://:::?master_name=m",           // go-redis form, bad host
	} {
		if fo, err := parseSentinelURL(bad); err == nil {
			t.Errorf("%s: no error: %+v", bad, fo)
		}
	}
}

// TestBadAddresses: addresses that cannot be dialled are usage errors,
// found before any connection; a password never shows in the message.
func TestBadAddresses(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	for _, tc := range []struct {
		urls    []string
		cluster bool
		want    string
	}{
		{[]string{":::"}, false, "brackets"},
		{[]string{"garbage"}, false, "not a Redis address"},
		{[]string{"localhost"}, false, "not a Redis address"},
		{[]string{"::1"}, false, "brackets"},
		{[]string{"redis://:::"}, false, "brackets"},
		{[]string{"redis://h:0"}, false, "bad port"},
		{[]string{"redis://h:99999"}, false, "bad port"},
		{[]string{"h:99999"}, false, "bad port"},
		{[]string{"redis://u:secret@h st:1"}, false, "invalid character"},
		{[]string{"redis://u:secret@h!:1"}, false, "bad host"},
		{[]string{"http://h:1"}, false, "unknown scheme"},
		{[]string{"redis://h:1/x"}, false, "invalid database"},
		{[]string{"redis://h:1?bogus=1"}, false, "unexpected option"},
		{[]string{"redis://[1.2.3.4]:1"}, false, "invalid IP-literal"},
		{[]string{"[1.2.3.4]:1"}, false, "not an IPv6 address"},
		{[]string{"redis://a:1,:::"}, true, "brackets"},
		{[]string{"redis://a:1", "b"}, true, "not a Redis address"},
		{[]string{"redis://:::", "b:1"}, true, "brackets"},
		{[]string{"redis-sentinel://u:secret@:::/m"}, false, "brackets"},
		{[]string{"redis-sentinel://h/m"}, true, "only Redis address"},
	} {
		cf := Flags{URLs: tc.urls, Cluster: tc.cluster, Timeout: time.Second}
		cn, err := cf.Client(nil)
		if err == nil {
			cn.Close()
			t.Errorf("%v: no error", tc.urls)
			continue
		}
		if _, ok := err.(ErrUsage); !ok || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: want a usage error saying %q, without the password: %T %v", tc.urls, tc.want, err, err)
		}
	}
	for _, good := range []string{"localhost:6379", "[::1]:6379", "redis://[::1]", "redis://", "redis://h",
		"rediss://u:p@h:6380/1", "unix:///tmp/redis.sock", "redis://h_1.example-2.com:7000/3?dial_timeout=1s",
		"redis://[fe80::1%25eth0]:6379"} {
		cf := Flags{URLs: URLList{good}, Timeout: time.Second}
		cn, err := cf.Client(nil)
		if err != nil {
			t.Errorf("%s: %v", good, err)
			continue
		}
		cn.Close()
	}
	t.Setenv("REDIS_URL", "garbage")
	cf := Flags{Timeout: time.Second}
	if _, err := cf.Client(nil); err == nil || !strings.Contains(err.Error(), "$REDIS_URL") {
		t.Errorf("REDIS_URL=garbage: want a usage error naming $REDIS_URL: %v", err)
	}
}

func TestConnFlags(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	cf := Flags{URLs: URLList{"redis://a:1,b:2", "redis://c:3"}, Cluster: true, Timeout: time.Second}
	cn, err := cf.Client(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	cc := cn.RDB.(*redis.ClusterClient)
	if got := cc.Options().Addrs; !reflect.DeepEqual(got, []string{"a:1", "b:2", "c:3"}) {
		t.Errorf("cluster seeds %v", got)
	}
	if cc.Options().ReadTimeout != time.Second {
		t.Errorf("--timeout not applied: %v", cc.Options().ReadTimeout)
	}

	cf = Flags{URLs: URLList{"localhost:7777"}, Timeout: time.Second}
	cn, err = cf.Client(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := cn.RDB.(*redis.Client).Options(); o.Addr != "localhost:7777" || cn.mode != "single" {
		t.Errorf("bare address: %+v", o)
	}
	cn.Close()

	t.Setenv("REDIS_URL", "redis://:pw@envhost:6380/2")
	cf = Flags{Timeout: time.Second}
	if !cf.Configured() {
		t.Fatal("REDIS_URL not seen")
	}
	cn, err = cf.Client(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := cn.RDB.(*redis.Client).Options(); o.Addr != "envhost:6380" || o.DB != 2 || o.Password != "pw" {
		t.Errorf("REDIS_URL: %+v", o)
	}
	if cn.Display != "envhost:6380/2" {
		t.Errorf("display %q", cn.Display)
	}
	cn.Close()

	cf = Flags{URLs: URLList{"redis://a:1", "redis://b:2"}, Timeout: time.Second}
	if _, err := cf.Client(nil); err == nil {
		t.Error("two addresses without --cluster: no error")
	}
	cf = Flags{URLs: URLList{"redis-sentinel://s1,s2/m"}, Timeout: time.Second}
	cn, err = cf.Client(nil)
	if err != nil || cn.mode != "sentinel" {
		t.Fatalf("%v %v", cn, err)
	}
	cn.Close()
	if got := redact("redis://user:secret@h:1/0"); got != "redis://user:xxx@h:1/0" {
		t.Errorf("redact: %s", got)
	}
}
