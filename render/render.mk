# Report rendering: browser checks, screenshots and golden files.
# Included from the top-level Makefile.

CHROMIUM        ?= /usr/bin/chromium
SCREENSHOT_DIR  ?= $(OUT)/screenshots

.PHONY: browser-deps screenshots test-render golden-update

browser-deps: ## install headless Chromium and CJK/emoji fonts for the browser tests (Debian, needs root)
	@if [ ! -x "$(CHROMIUM)" ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			chromium fonts-noto-cjk fonts-noto-color-emoji; \
	else echo "chromium present: $(CHROMIUM)"; fi

screenshots: browser-deps ## write out/screenshots/: site index, failed and running job, rule pages (en, zh; 1400 and 390 px) and the standalone report
	@mkdir -p $(SCREENSHOT_DIR) && rm -f $(SCREENSHOT_DIR)/report.*.png $(SCREENSHOT_DIR)/site-*.png
	TRAINDOC_REQUIRE_BROWSER=1 TRAINDOC_SCREENSHOTS=$(abspath $(SCREENSHOT_DIR)) CHROMIUM=$(CHROMIUM) \
		$(GO) test -count=1 -run 'TestBrowserScreenshots' ./render/
	TRAINDOC_REQUIRE_BROWSER=1 TRAINDOC_SCREENSHOTS=$(abspath $(SCREENSHOT_DIR)) CHROMIUM=$(CHROMIUM) \
		$(GO) test -count=1 -run 'TestSiteScreenshots' ./site/
	@ls -1 $(SCREENSHOT_DIR)/*.png

test-render: browser-deps ## render tests incl. headless Chromium (console errors, network requests, payloads)
	TRAINDOC_REQUIRE_BROWSER=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 ./render/... ./internal/browser/

golden-update: ## regenerate render golden files (review the diff)
	$(GO) test ./render/... -update
