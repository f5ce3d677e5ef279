/** Non-2xx recordings, 2xx answers that are not this API's JSON, and fixtures other suites use. */
import { type Failure, S1, S2 } from './common';

/** Non-2xx fixtures: the call that provokes them, and the endpoint the error must name. */
export const failures: Record<string, Failure> = {
  budgets_GET_byid: { call: (c) => c.request('GET', '/api/budgets/1'), endpoint: 'GET /api/budgets/1' },
  budgets_POST_badjson: {
    call: (c) => c.request('POST', '/api/budgets', { body: 'x' }),
    endpoint: 'POST /api/budgets',
  },
  budgets_PUT_badid: {
    call: (c) => c.request('PUT', '/api/budgets/abc', { body: {} }),
    endpoint: 'PUT /api/budgets/abc',
  },
  budgets_status_POST: {
    call: (c) => c.request('POST', '/api/budgets/status'),
    endpoint: 'POST /api/budgets/status',
  },
  config_POST_badjson: {
    call: (c) => c.request('POST', '/api/config', { body: 'b' }),
    endpoint: 'POST /api/config',
  },
  config_PUT: { call: (c) => c.request('PUT', '/api/config', { body: {} }), endpoint: 'PUT /api/config' },
  export_badformat: {
    call: (c) => c.request('GET', '/api/export', { query: { format: 'xml' } }),
    endpoint: 'GET /api/export',
    refused: { call: (c) => c.export({ format: 'xml' as 'json' }), field: 'format' },
  },
  export_empty_filter: { call: (c) => c.export({ project: '/nowhere' }), endpoint: 'GET /api/export' },
  export_nosession: { call: (c) => c.exportSessions({ sessionId: 'nope' }), endpoint: 'GET /api/export' },
  'git-sync_GET': { call: (c) => c.request('GET', '/api/git-sync'), endpoint: 'GET /api/git-sync' },
  prompt_detail_404: { call: (c) => c.getPrompt('nope'), endpoint: 'GET /api/prompts/nope' },
  search_bad_fts: { call: (c) => c.search('"unterminated'), endpoint: 'GET /api/search' },
  search_missing_q: {
    call: (c) => c.request('GET', '/api/search'),
    endpoint: 'GET /api/search',
    refused: { call: (c) => c.search(''), field: 'q' },
  },
  session_DELETE: {
    call: (c) => c.request('DELETE', `/api/sessions/${S1}`),
    endpoint: `DELETE /api/sessions/${S1}`,
  },
  session_PATCH_badjson: {
    call: (c) => c.request('PATCH', `/api/sessions/${S1}`, { body: 'x' }),
    endpoint: `PATCH /api/sessions/${S1}`,
  },
  session_PATCH_tags_array: {
    call: (c) => c.request('PATCH', `/api/sessions/${S1}`, { body: { tags: ['a'] } }),
    endpoint: `PATCH /api/sessions/${S1}`,
  },
  session_detail_404: { call: (c) => c.getSession('nope'), endpoint: 'GET /api/sessions/nope' },
  session_detail_empty: {
    call: (c) => c.request('GET', '/api/sessions/'),
    endpoint: 'GET /api/sessions/',
    refused: { call: (c) => c.getSession(''), field: 'id' },
  },
  sessions_POST: {
    call: (c) => c.request('POST', '/api/sessions', { body: {} }),
    endpoint: 'POST /api/sessions',
  },
  sessions_compare_missing: {
    call: (c) => c.request('GET', '/api/sessions/compare'),
    endpoint: 'GET /api/sessions/compare',
    refused: { call: (c) => c.compareSessions('', S2), field: 'a' },
  },
  stats_POST: { call: (c) => c.request('POST', '/api/stats'), endpoint: 'POST /api/stats' },
  'stats_file-heatmap_missing': {
    call: (c) => c.request('GET', '/api/stats/file-heatmap'),
    endpoint: 'GET /api/stats/file-heatmap',
    refused: { call: (c) => c.getFileHeatmap({ project: '' }), field: 'project' },
  },
  'stats_project-breakdown_missing': {
    call: (c) => c.request('GET', '/api/stats/project-breakdown'),
    endpoint: 'GET /api/stats/project-breakdown',
    refused: { call: (c) => c.getProjectBreakdown(' '), field: 'project' },
  },
  'stats_session-breakdown_missing': {
    call: (c) => c.request('GET', '/api/stats/session-breakdown'),
    endpoint: 'GET /api/stats/session-breakdown',
    refused: { call: (c) => c.getSessionBreakdown(''), field: 'sessionId' },
  },
  stats_unknown: { call: (c) => c.request('GET', '/api/stats/unknown'), endpoint: 'GET /api/stats/unknown' },
  ws_plain_http: { call: (c) => c.request('GET', '/ws'), endpoint: 'GET /ws' },
};

/** 2xx fixtures that are not this API's JSON: the client must refuse them as invalid responses. */
export const notApi: Record<string, Failure> = {
  // What a client pointed at the web UI's port/path gets: the dashboard's HTML.
  root_index: { call: (c) => c.getStats(), endpoint: 'GET /api/stats' },
};

/** Fixtures consumed by other suites. */
export const elsewhere = new Set(['ws_messages.jsonl']);
