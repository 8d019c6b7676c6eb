package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const connFlagsHelp = `  --redis URL    Redis to use; repeatable, or a comma list (default $REDIS_URL):
                   redis://[user:pass@]host:port/db    one server (host:port alone works too)
                   rediss://...                        the same over TLS
                   redis-sentinel://[pass@]host:port[,host:port]/mastername[/db]
                                                       the master a Sentinel group names;
                                                       ?sentinel_password=P if sentinels need one
                   with --cluster, every address is a seed node of a Redis Cluster
  --cluster      the --redis addresses belong to a Redis Cluster
  --timeout D    connect and command timeout, also the lock client's timeout for
                 unlocks and watchdog renewals (default 3s)
`

// connFlags are the connection flags of every command that talks to Redis.
type connFlags struct {
	urls    urlList
	cluster bool
	timeout time.Duration
}

// urlList is a repeatable --redis flag.
type urlList []string

func (l *urlList) String() string { return strings.Join(*l, ",") }

func (l *urlList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.Var(&c.urls, "redis", "Redis `URL`: redis://[user:pass@]host:port/db, rediss:// (TLS),\n"+
		"redis-sentinel://[pass@]host:port[,host:port]/master; repeatable or a comma list\n"+
		"(default $REDIS_URL)")
	fs.BoolVar(&c.cluster, "cluster", false, "the --redis addresses are seed nodes of a Redis Cluster")
	fs.DurationVar(&c.timeout, "timeout", 3*time.Second, "`duration` of connect and command timeouts; also the lock client's timeout\n(redisson.WithTimeout: unlocks, watchdog renewals)")
}

// configured reports whether a Redis was given, by flag or $REDIS_URL.
func (c *connFlags) configured() bool {
	return len(c.urls) > 0 || strings.TrimSpace(os.Getenv("REDIS_URL")) != ""
}

// rawValue returns the --redis values (or $REDIS_URL) as one comma list, for
// passing on to a child process in its environment.
func (c *connFlags) rawValue() string {
	if len(c.urls) > 0 {
		return strings.Join(c.urls, ",")
	}
	return os.Getenv("REDIS_URL")
}

// items splits the --redis values into URLs and bare addresses. A Sentinel URL
// keeps its comma list of sentinels.
func (c *connFlags) items() []string {
	values := []string(c.urls)
	if len(values) == 0 {
		if v := strings.TrimSpace(os.Getenv("REDIS_URL")); v != "" {
			values = []string{v}
		}
	}
	var out []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if isSentinelURL(v) {
			out = append(out, v)
			continue
		}
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func isSentinelURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "redis-sentinel://") || strings.HasPrefix(l, "rediss-sentinel://")
}

// errUsage marks connection settings that make no sense (exit code 2).
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

// conn is a connected go-redis client and what the commands need to know
// about it.
type conn struct {
	rdb      redis.UniversalClient
	mode     string // "single", "cluster" or "sentinel"
	display  string // where, without passwords
	failover *redis.FailoverOptions
}

// Close closes the go-redis client.
func (c *conn) Close() error { return c.rdb.Close() }

// dialHook, when set, is told the local address of every connection made.
type dialHook func(local net.Addr)

// options builds the go-redis client of the flags (it does not connect).
func (c *connFlags) client(hook dialHook) (*conn, error) {
	if c.timeout <= 0 {
		return nil, errUsage{"--timeout must be positive"}
	}
	items := c.items()
	if len(items) == 0 {
		return nil, errUsage{"no Redis given: use --redis URL or set REDIS_URL"}
	}
	for _, it := range items {
		if isSentinelURL(it) {
			if len(items) > 1 || c.cluster {
				return nil, errUsage{"a redis-sentinel:// URL must be the only Redis address, without --cluster"}
			}
			fo, err := parseSentinelURL(it)
			if err != nil {
				return nil, errUsage{err.Error()}
			}
			fo.DialTimeout = orDefault(fo.DialTimeout, c.timeout)
			fo.ReadTimeout = orDefault(fo.ReadTimeout, c.timeout)
			fo.WriteTimeout = orDefault(fo.WriteTimeout, c.timeout)
			if hook != nil {
				fo.Dialer = hookedDialer(fo.DialTimeout, fo.TLSConfig, hook)
			}
			display := fmt.Sprintf("sentinel master %q via %s", fo.MasterName, strings.Join(fo.SentinelAddrs, ","))
			return &conn{rdb: redis.NewFailoverClient(fo), mode: "sentinel", display: display, failover: fo}, nil
		}
	}
	if c.cluster {
		first := items[0]
		if !strings.Contains(first, "://") {
			first = "redis://" + first
		}
		co, err := redis.ParseClusterURL(first)
		if err != nil {
			return nil, errUsage{fmt.Sprintf("--redis %s: %v", redact(items[0]), err)}
		}
		for _, it := range items[1:] {
			addr, err := hostPort(it)
			if err != nil {
				return nil, errUsage{fmt.Sprintf("--redis %s: %v", redact(it), err)}
			}
			co.Addrs = append(co.Addrs, addr)
		}
		co.DialTimeout = orDefault(co.DialTimeout, c.timeout)
		co.ReadTimeout = orDefault(co.ReadTimeout, c.timeout)
		co.WriteTimeout = orDefault(co.WriteTimeout, c.timeout)
		if hook != nil {
			co.Dialer = hookedDialer(co.DialTimeout, co.TLSConfig, hook)
		}
		display := "cluster " + strings.Join(co.Addrs, ",")
		if co.TLSConfig != nil {
			display += " (TLS)"
		}
		return &conn{rdb: redis.NewClusterClient(co), mode: "cluster", display: display}, nil
	}
	if len(items) > 1 {
		return nil, errUsage{fmt.Sprintf("%d Redis addresses given: add --cluster for a Redis Cluster, or give one", len(items))}
	}
	u := items[0]
	if !strings.Contains(u, "://") {
		u = "redis://" + u
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		return nil, errUsage{fmt.Sprintf("--redis %s: %v", redact(items[0]), err)}
	}
	o.DialTimeout = orDefault(o.DialTimeout, c.timeout)
	o.ReadTimeout = orDefault(o.ReadTimeout, c.timeout)
	o.WriteTimeout = orDefault(o.WriteTimeout, c.timeout)
	if hook != nil {
		o.Dialer = hookedDialer(o.DialTimeout, o.TLSConfig, hook)
	}
	display := o.Addr
	if o.DB != 0 {
		display += "/" + strconv.Itoa(o.DB)
	}
	if o.TLSConfig != nil {
		display += " (TLS)"
	}
	return &conn{rdb: redis.NewClient(o), mode: "single", display: display}, nil
}

// connect builds the client and checks that Redis answers. A usage problem
// is reported as errUsage.
func (c *connFlags) connect(ctx context.Context, hook dialHook) (*conn, error) {
	cn, err := c.client(hook)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if cl, ok := cn.rdb.(*redis.ClusterClient); ok {
		err = cl.ForEachShard(pctx, func(ctx context.Context, node *redis.Client) error {
			return node.Ping(ctx).Err()
		})
	} else {
		err = cn.rdb.Ping(pctx).Err()
	}
	if err != nil {
		cn.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %w", cn.display, err)
	}
	return cn, nil
}

// connectOrExit connects and turns errors into an exit code: 2 for usage
// problems, 1 otherwise.
func connectOrExit(ctx context.Context, fs *flag.FlagSet, cf *connFlags, hook dialHook) (*conn, int) {
	cn, err := cf.connect(ctx, hook)
	if err == nil {
		return cn, exitOK
	}
	var ue errUsage
	if errors.As(err, &ue) {
		return nil, usageError(fs, "%s", ue.msg)
	}
	return nil, errorf(fs.Name(), "%v", err)
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// hookedDialer is go-redis' default dialer that also reports each
// connection's local address: the client address MONITOR shows.
func hookedDialer(timeout time.Duration, tlsConfig *tls.Config, hook dialHook) func(context.Context, string, string) (net.Conn, error) {
	dial := redis.NewDialer(&redis.Options{DialTimeout: timeout, TLSConfig: tlsConfig})
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err == nil {
			hook(nc.LocalAddr())
		}
		return nc, err
	}
}

// hostPort returns the host:port of a URL or a bare address (port 6379 by
// default).
func hostPort(s string) (string, error) {
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return "", err
		}
		s = u.Host
	}
	if s == "" {
		return "", errors.New("no host")
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		return net.JoinHostPort(strings.Trim(s, "[]"), "6379"), nil
	}
	return s, nil
}

// parseSentinelURL parses
// redis-sentinel://[[user:]pass@]host:port[,host:port...]/mastername[/db][?params]
// (rediss-sentinel:// for TLS). The password is the master's; sentinels get
// ?sentinel_username= and ?sentinel_password=. ?db= sets the database.
func parseSentinelURL(s string) (*redis.FailoverOptions, error) {
	scheme, rest, _ := strings.Cut(s, "://")
	rest, rawQuery, _ := strings.Cut(rest, "?")
	authority, path, _ := strings.Cut(rest, "/")
	fo := &redis.FailoverOptions{}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo := authority[:at]
		authority = authority[at+1:]
		user, pass, hasPass := strings.Cut(userinfo, ":")
		if !hasPass {
			user, pass = "", userinfo
		}
		var err error
		if fo.Username, err = url.PathUnescape(user); err != nil {
			return nil, fmt.Errorf("%s: bad user name: %v", redact(s), err)
		}
		if fo.Password, err = url.PathUnescape(pass); err != nil {
			return nil, fmt.Errorf("%s: bad password: %v", redact(s), err)
		}
	}
	for _, h := range strings.Split(authority, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), "26379")
		}
		fo.SentinelAddrs = append(fo.SentinelAddrs, h)
	}
	if len(fo.SentinelAddrs) == 0 {
		return nil, fmt.Errorf("%s: no sentinel address", redact(s))
	}
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	if len(segs) == 0 || len(segs) > 2 {
		return nil, fmt.Errorf("%s: want the master name as the path: redis-sentinel://host:port/mastername[/db]", redact(s))
	}
	var err error
	if fo.MasterName, err = url.PathUnescape(segs[0]); err != nil {
		return nil, fmt.Errorf("%s: bad master name: %v", redact(s), err)
	}
	if len(segs) == 2 {
		if fo.DB, err = strconv.Atoi(segs[1]); err != nil {
			return nil, fmt.Errorf("%s: bad database number %q", redact(s), segs[1])
		}
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", redact(s), err)
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "sentinel_password":
			fo.SentinelPassword = v
		case "sentinel_username":
			fo.SentinelUsername = v
		case "db":
			if fo.DB, err = strconv.Atoi(v); err != nil {
				return nil, fmt.Errorf("%s: bad database number %q", redact(s), v)
			}
		default:
			return nil, fmt.Errorf("%s: unknown parameter %q (known: db, sentinel_username, sentinel_password)", redact(s), k)
		}
	}
	switch strings.ToLower(scheme) {
	case "rediss-sentinel":
		host, _, _ := net.SplitHostPort(fo.SentinelAddrs[0])
		fo.TLSConfig = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	case "redis-sentinel":
	default:
		return nil, fmt.Errorf("%s: unknown scheme %q", redact(s), scheme)
	}
	return fo, nil
}

// redact hides the password of a URL for messages.
func redact(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	authority, path, hasPath := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(authority[:at], ":")
	if hasPass {
		authority = user + ":xxx" + authority[at:]
	} else {
		authority = "xxx" + authority[at:]
	}
	out := scheme + "://" + authority
	if hasPath {
		out += "/" + path
	}
	return out
}

// monTarget is one Redis server to MONITOR: how to dial it, and a client
// whose ECHO shows up in that server's MONITOR stream.
type monTarget struct {
	addr   string
	opts   *redis.Options
	client *redis.Client
}

// masters returns the master servers of the connection: the one server, the
// Sentinel group's current master, or every cluster master.
func (c *conn) masters(ctx context.Context) ([]monTarget, error) {
	switch rdb := c.rdb.(type) {
	case *redis.ClusterClient:
		var mu sync.Mutex
		var out []monTarget
		err := rdb.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
			o := *node.Options()
			mu.Lock()
			out = append(out, monTarget{addr: o.Addr, opts: &o, client: node})
			mu.Unlock()
			return nil
		})
		sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
		return out, err
	case *redis.Client:
		o := *rdb.Options()
		if c.failover != nil {
			addr, err := sentinelMaster(ctx, c.failover)
			if err != nil {
				return nil, err
			}
			o.Addr = addr
		}
		return []monTarget{{addr: o.Addr, opts: &o, client: rdb}}, nil
	}
	return nil, fmt.Errorf("unsupported client %T", c.rdb)
}

// sentinelMaster asks the sentinels for the master's address.
func sentinelMaster(ctx context.Context, fo *redis.FailoverOptions) (string, error) {
	var last error
	for _, addr := range fo.SentinelAddrs {
		sc := redis.NewSentinelClient(&redis.Options{
			Addr: addr, Username: fo.SentinelUsername, Password: fo.SentinelPassword,
			TLSConfig: fo.TLSConfig, DialTimeout: fo.DialTimeout, ReadTimeout: fo.ReadTimeout,
		})
		hp, err := sc.GetMasterAddrByName(ctx, fo.MasterName).Result()
		sc.Close()
		if err == nil && len(hp) == 2 {
			return net.JoinHostPort(hp[0], hp[1]), nil
		}
		last = err
	}
	return "", fmt.Errorf("no sentinel knows master %q: %v", fo.MasterName, last)
}
