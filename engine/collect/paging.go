package collect

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// pageSize is how many objects one list request asks for: a namespace
// with 100,000 events comes in 200 responses, not one.
const pageSize = 500

// listFunc lists one page of a resource.
type listFunc func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)

// eachItem lists a resource page by page and calls fn with every object,
// each a copy that holds no page alive. Every page is one request under
// the per-request timeout, so a long listing is not cut short by it. An
// error of fn stops the listing and is returned; items already given to
// fn stay given, as for a listing that fails half way.
func (c *collector) eachItem(ctx context.Context, list listFunc, fn func(runtime.Object) error) error {
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		rctx, cancel := c.reqCtx(ctx)
		defer cancel()
		return list(rctx, opts)
	})
	p.PageSize = pageSize
	// One page is read while the one before is handled: the network and
	// the work overlap, and no more than two pages are held.
	p.PageBufferSize = 1
	return p.EachListItemWithAlloc(ctx, metav1.ListOptions{}, fn)
}
