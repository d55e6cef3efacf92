// traindoc site: language choice, and filters and offline search on the
// job index. Everything here is an enhancement: every page reads fully
// without it. No data is ever inserted as HTML, only as text.
(function () {
  'use strict';

  var LANG_KEY = 'traindoc.lang';

  function store(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* storage may be off for file:// */ }
  }
  function load(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }

  // The root page sends the reader to the language they chose last, else
  // to the browser's preferred one.
  function pickLanguage() {
    if (!document.getElementById('lang-picker')) { return; }
    var lang = load(LANG_KEY);
    if (lang !== 'en' && lang !== 'zh') {
      var prefs = navigator.languages || [navigator.language || 'en'];
      lang = 'en';
      for (var i = 0; i < prefs.length; i++) {
        var p = String(prefs[i]).toLowerCase();
        if (p.indexOf('zh') === 0) { lang = 'zh'; break; }
        if (p.indexOf('en') === 0) { break; }
      }
    }
    window.location.replace(lang + '/index.html');
  }

  // The switch lands on the same page in the other language, keeping the
  // fragment: finding anchors and filter state are the same in both.
  function languageSwitch() {
    var a = document.getElementById('lang-switch');
    if (!a) { return; }
    a.addEventListener('click', function () {
      var target = a.getAttribute('hreflang') === 'zh-CN' ? 'zh' : 'en';
      store(LANG_KEY, target);
      a.setAttribute('href', a.getAttribute('href').split('#')[0] + window.location.hash);
    });
  }

  // ---- search ----

  var CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/;
  var WORD = /[\p{L}\p{N}]/u;

  // tokenize splits text into lower-case words (Latin and other
  // space-separated scripts) and CJK characters and bigrams, because
  // Chinese has no spaces: a word inside a sentence is found through the
  // bigrams it shares with the sentence.
  function tokenize(text) {
    var words = [], grams = [], chars = [];
    var word = '', run = [];
    function endWord() { if (word) { words.push(word); word = ''; } }
    function endRun() {
      for (var i = 0; i < run.length; i++) {
        chars.push(run[i]);
        if (i + 1 < run.length) { grams.push(run[i] + run[i + 1]); }
      }
      run = [];
    }
    for (var ch of String(text).toLowerCase()) {
      if (CJK.test(ch)) { endWord(); run.push(ch); }
      else if (WORD.test(ch)) { endRun(); word += ch; }
      else { endWord(); endRun(); }
    }
    endWord(); endRun();
    return { words: words, grams: grams, chars: chars };
  }

  function fieldIndex(text) {
    var t = tokenize(text);
    return { words: t.words, grams: new Set(t.grams), chars: new Set(t.chars) };
  }

  function buildIndex(entries) {
    return entries.map(function (e) {
      return {
        entry: e,
        fields: [
          { w: 4, idx: fieldIndex(e.title) },
          { w: 2, idx: fieldIndex(e.sub || '') },
          { w: 1, idx: fieldIndex(e.text) }
        ]
      };
    });
  }

  // query terms: Latin words match as prefixes; CJK runs match through
  // their bigrams (a single character matches itself).
  function queryTerms(q) {
    var t = tokenize(q), terms = [];
    t.words.forEach(function (w) { terms.push({ kind: 'word', v: w }); });
    if (t.grams.length) {
      t.grams.forEach(function (g) { terms.push({ kind: 'gram', v: g }); });
    } else {
      t.chars.forEach(function (c) { terms.push({ kind: 'char', v: c }); });
    }
    return terms;
  }

  function termIn(term, idx) {
    if (term.kind === 'gram') { return idx.grams.has(term.v); }
    if (term.kind === 'char') { return idx.chars.has(term.v); }
    for (var i = 0; i < idx.words.length; i++) {
      if (idx.words[i].indexOf(term.v) === 0) { return true; }
    }
    return false;
  }

  // search returns the entries that match every term, best first.
  function search(index, q) {
    var terms = queryTerms(q);
    if (!terms.length) { return null; }
    var hits = [];
    index.forEach(function (item, pos) {
      var score = 0;
      for (var i = 0; i < terms.length; i++) {
        var best = 0;
        item.fields.forEach(function (f) {
          if (f.w > best && termIn(terms[i], f.idx)) { best = f.w; }
        });
        if (!best) { return; }
        score += best;
      }
      hits.push({ entry: item.entry, score: score, pos: pos });
    });
    hits.sort(function (a, b) { return b.score - a.score || a.pos - b.pos; });
    return hits;
  }

  // ---- index filters ----

  function filters() {
    var form = document.getElementById('filters');
    var table = document.getElementById('jobs');
    if (!form || !table) { return; }
    var index = buildIndex(window.TRAINDOC_SEARCH || []);
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var q = document.getElementById('q');
    var selects = Array.prototype.slice.call(form.querySelectorAll('select[data-attr]'));
    var count = document.getElementById('count');
    var none = document.getElementById('none');
    var more = document.getElementById('more');
    var moreList = document.getElementById('more-list');
    form.hidden = false;

    function readHash() {
      var params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
      q.value = params.get('q') || '';
      selects.forEach(function (s) {
        var v = params.get(s.name) || '';
        if (v === 'all') { v = ''; }
        s.value = Array.prototype.some.call(s.options, function (o) { return o.value === v; }) ? v : '';
      });
    }

    function writeHash() {
      var params = new URLSearchParams();
      if (q.value.trim()) { params.set('q', q.value.trim()); }
      selects.forEach(function (s) { if (s.value) { params.set(s.name, s.value); } });
      var h = params.toString();
      try {
        window.history.replaceState(null, '', h ? '#' + h : window.location.pathname + window.location.search);
      } catch (e) { /* some file:// setups refuse; the filters still work */ }
    }

    function showMore(hits) {
      while (moreList.firstChild) { moreList.removeChild(moreList.firstChild); }
      var shown = 0;
      (hits || []).forEach(function (h) {
        if (h.entry.type === 'job' || shown >= 12) { return; }
        shown++;
        var li = document.createElement('li');
        var a = document.createElement('a');
        a.href = h.entry.url;
        var kind = document.createElement('span');
        kind.className = 'kind';
        kind.textContent = form.getAttribute('data-kind-' + h.entry.type) || h.entry.type;
        a.appendChild(kind);
        a.appendChild(document.createTextNode(h.entry.title));
        li.appendChild(a);
        moreList.appendChild(li);
      });
      more.hidden = shown === 0;
    }

    function apply() {
      var hits = search(index, q.value);
      var jobHits = null;
      if (hits) {
        jobHits = new Set();
        hits.forEach(function (h) { if (h.entry.type === 'job') { jobHits.add(h.entry.id); } });
      }
      var shown = 0;
      rows.forEach(function (row) {
        var ok = !jobHits || jobHits.has(row.getAttribute('data-id'));
        selects.forEach(function (s) {
          if (s.value && row.getAttribute('data-' + s.getAttribute('data-attr')) !== s.value) { ok = false; }
        });
        row.hidden = !ok;
        if (ok) { shown++; }
      });
      count.textContent = form.getAttribute('data-count')
        .replace('{shown}', String(shown)).replace('{total}', String(rows.length));
      none.hidden = shown !== 0;
      showMore(hits);
    }

    q.addEventListener('input', function () { apply(); writeHash(); });
    selects.forEach(function (s) { s.addEventListener('change', function () { apply(); writeHash(); }); });
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.addEventListener('reset', function () {
      window.setTimeout(function () { apply(); writeHash(); }, 0);
    });
    window.addEventListener('hashchange', function () { readHash(); apply(); });
    document.addEventListener('keydown', function (e) {
      var tag = (e.target && e.target.tagName) || '';
      if (e.key === '/' && tag !== 'INPUT' && tag !== 'SELECT' && tag !== 'TEXTAREA') {
        e.preventDefault();
        q.focus();
      }
    });
    readHash();
    apply();
  }

  function start() {
    pickLanguage();
    languageSwitch();
    filters();
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
  // Exposed for the tests of the tokenizer.
  window.TRAINDOC = { tokenize: tokenize, search: search, buildIndex: buildIndex };
})();
