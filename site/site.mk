# Static site: build from the fixtures, browser test, screenshots.
# Included from the top-level Makefile.

SITE_DIR        ?= $(OUT)/site
SITE_HISTORY    := $(sort $(wildcard site/testdata/history/*.json))

.PHONY: demo-site site-test site-screenshots

demo-site: build fixtures ## build the static site from every fixture (plus two saved runs for trends) into out/site
	@$(BIN) site $(foreach d,$(FIXTURES),--snapshot $(d)) $(foreach r,$(SITE_HISTORY),--reports $(r)) --out $(SITE_DIR) >/dev/null
	@echo "Site built. Open it in a browser:"
	@echo "  file://$(abspath $(SITE_DIR))/index.html"

site-test: browser-deps ## site tests incl. headless Chromium over the fixture site (fails without a browser)
	TRAINDOC_REQUIRE_BROWSER=1 CHROMIUM=$(CHROMIUM) $(GO) test -count=1 ./site/...

site-screenshots: browser-deps ## write out/screenshots/site-*.png: index and a job page in both languages, phone/dark variants
	@mkdir -p $(SCREENSHOT_DIR)
	TRAINDOC_REQUIRE_BROWSER=1 TRAINDOC_SCREENSHOTS=$(abspath $(SCREENSHOT_DIR)) CHROMIUM=$(CHROMIUM) \
		$(GO) test -count=1 -run 'TestSiteScreenshots' -v ./site/ | grep -E 'wrote|FAIL|ok' || true
	@ls -1 $(SCREENSHOT_DIR)/site-*.png
