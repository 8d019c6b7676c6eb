package browsertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/goredisson/redisson/keys"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/semaphore"
)

// TestExpiredPermitAgrees: a permit whose lease has passed is expired on
// the overview (not "acquired 1", not held) and on the object page alike.
func TestExpiredPermitAgrees(t *testing.T) {
	addr, rdb := startRedis(t)
	base := startDashboard(t, addr)
	client := redissontest.NewClient(t, rdb)
	ctx := context.Background()
	pes := client.PermitExpirableSemaphore("licenses")
	if _, err := pes.TrySetPermits(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := pes.Acquire(ctx, semaphore.WithLease(20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for rdb.ZCount(ctx, keys.ExpirableSemaphoreTimeout("licenses"), "-inf", fmt.Sprint(time.Now().UnixMilli())).Val() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the permit's lease did not pass")
		}
		time.Sleep(5 * time.Millisecond)
	}

	bctx := browser(t)
	if err := chromedp.Do(bctx, chromedp.Navigate(base)); err != nil {
		t.Fatal(err)
	}
	live(t, bctx)
	row := `document.querySelector('tr[data-name="licenses"]')`
	within(t, bctx, 5*time.Second, "the overview says expired, not held",
		row+` !== null && `+row+`.cells[2].innerText === "permits 2, acquired 0, expired 1" && !`+row+`.cells[2].classList.contains("state-held")`)

	if err := chromedp.Do(bctx, chromedp.Navigate(base+"object?name=licenses")); err != nil {
		t.Fatal(err)
	}
	live(t, bctx)
	stat := func(label string) string {
		return `[...document.querySelectorAll(".stat")].some(s => s.querySelector(".label").textContent === ` + js(label) + ` && s.querySelector(".value").textContent === `
	}
	within(t, bctx, 5*time.Second, "the page says 0 acquired, 1 expired",
		stat("Acquired")+`"0") && `+stat("Expired")+`"1") && `+stat("Available permits")+`"2") && document.querySelector("#body .stale").textContent === "expired"`)
	screenshot(t, bctx, "object-expired-permit")
}
