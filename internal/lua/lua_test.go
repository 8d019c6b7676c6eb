package lua_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
)

func TestBody(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"one header line", "-- ours: x\nreturn 1", "return 1"},
		{"several, then a blank line kept", "-- a\n-- b\n--\n\nreturn 1\n", "\nreturn 1\n"},
		{"a comment after the body starts stays", "-- a\n\n-- kept\nreturn 1", "\n-- kept\nreturn 1"},
		{"no header", "return 1", "return 1"},
		{"header only", "-- a\n-- b", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, lua.Body(tc.src))
		})
	}
}

// files is a package's lua directory for the cases below.
var files = fstest.MapFS{
	"lua/plain.lua":            {Data: []byte("-- ours: test\n\nreturn 1\n")},
	"lua/frag.lua":             {Data: []byte("-- ours: test\nlocal x\n{{head}}\nreturn {{tail n=ARGV[2]}}")},
	"lua/nested.lua":           {Data: []byte("-- ours: test\n{{outer k=KEYS[1]}}")},
	"lua/missing.lua":          {Data: []byte("-- ours: test\n{{nowhere}}")},
	"lua/unclosed.lua":         {Data: []byte("-- ours: test\n{{head")},
	"lua/badarg.lua":           {Data: []byte("-- ours: test\n{{tail ARGV[2]}}")},
	"lua/empty.lua":            {Data: []byte("-- ours: test\n{{ }}")},
	"lua/loop.lua":             {Data: []byte("-- ours: test\n{{self}}")},
	"lua/noheader.lua":         {Data: []byte("return 1")},
	"lua/fragnoheader.lua":     {Data: []byte("-- ours: test\n{{nohead}}")},
	"lua/novalue.lua":          {Data: []byte("-- ours: test\n{{noval}}")},
	"lua/refuse.lua":           {Data: []byte("-- ours: test\n{{refuse_hash key=KEYS[1] want=lock}}")},
	"lua/fragments/head.lua":   {Data: []byte("-- head: a fragment\nlocal h = 1")},
	"lua/fragments/tail.lua":   {Data: []byte("-- tail: with a value\ntonumber({{n}}) + {{n}}")},
	"lua/fragments/outer.lua":  {Data: []byte("-- outer\nif {{k}} then {{inner}} end")},
	"lua/fragments/inner.lua":  {Data: []byte("-- inner: has no k of its own\n{{head}}")},
	"lua/fragments/self.lua":   {Data: []byte("-- self\n{{self}}")},
	"lua/fragments/noval.lua":  {Data: []byte("-- noval\n{{k}}")},
	"lua/fragments/nohead.lua": {Data: []byte("x")},
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"no markers", "lua/plain.lua", "\nreturn 1\n"},
		{"fragments, with and without values", "lua/frag.lua", "local x\nlocal h = 1\nreturn tonumber(ARGV[2]) + ARGV[2]"},
		{"a fragment in a fragment", "lua/nested.lua", "if KEYS[1] then local h = 1 end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lua.Text(files, tc.file)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.want, lua.MustText(files, tc.file))
		})
	}
}

func TestTextErrors(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"no such file", "lua/none.lua", "file does not exist"},
		{"no header", "lua/noheader.lua", "no leading comment"},
		{"no such fragment", "lua/missing.lua", "no fragment nowhere"},
		{"unclosed marker", "lua/unclosed.lua", "unclosed marker"},
		{"value without key", "lua/badarg.lua", "is not key=value"},
		{"empty marker", "lua/empty.lua", "empty marker"},
		{"a fragment naming itself", "lua/loop.lua", "nested more than"},
		{"a fragment without header", "lua/fragnoheader.lua", "nohead.lua: no leading comment"},
		{"a value the marker did not give", "lua/novalue.lua", "no fragment k"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lua.Text(files, tc.file)
			require.ErrorContains(t, err, tc.want)
			require.Panics(t, func() { lua.MustText(files, tc.file) })
		})
	}
}

// TestRefuseHashKinds: the shared refuse_hash fragment names every kind
// with core's token for it, which is how the Go side reads its reply.
func TestRefuseHashKinds(t *testing.T) {
	text := lua.MustText(files, "lua/refuse.lua")
	for _, k := range []string{core.KindHash, core.KindRWLock, core.KindRateLimiter, core.KindLock, core.KindGroup} {
		require.Contains(t, text, "holds = '"+k+"'")
	}
	require.Contains(t, text, "redis.error_reply('WRONGKIND ' .. holds .. ' "+core.KindLock+"')")
	require.False(t, strings.Contains(text, "{{"), "every marker replaced")
}
