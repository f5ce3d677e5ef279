/**
 * Generated from the reference server's OpenAPI document by openapi-typescript — do not edit.
 * Regenerate: pnpm --filter @agentgov/console generate:api
 */

export interface paths {
  '/api/v1/policies': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Policies visible to the caller (scoped by role) */
    get: operations['listPolicies'];
    put?: never;
    /** Create a policy (hierarchy validated; stored as active) */
    post: operations['createPolicy'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/policies/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One policy */
    get: operations['getPolicy'];
    /** Update content and changeReason (hierarchy re-validated when content changes) */
    put: operations['updatePolicy'];
    post?: never;
    /** Deprecate a policy (the record is kept) */
    delete: operations['deprecatePolicy'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/decisions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Extension: a policy decision for the caller in any decision domain (agent-to-agent, integrations, models, actions, data, features; audited as policy_decision) */
    post: operations['decide'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/decisions/explain': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Extension: why a decision comes out as it does for a user in the caller's scope — the effective policy, each level's policies and what they contributed, the decision and the policy that decided (audited as policy_decision) */
    post: operations['explainDecision'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Filtered, paginated audit query (newest first), scoped by tenant and role */
    get: operations['queryAudit'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Compliance export of the tenant, streamed as JSON {entries, total} or CSV */
    get: operations['exportAudit'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit/checkpoint': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The latest signed checkpoint: JWS and C2SP tlog-checkpoint signed note (text/plain with Accept: text/plain) */
    get: operations['getAuditCheckpoint'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit/consistency': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** RFC 9162 consistency proof between the trees of `from` and `to` entries */
    get: operations['proveAuditConsistency'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit/{id}/proof': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** RFC 9162 inclusion proof of one entry (tree size: `treeSize`, else the latest checkpoint) */
    get: operations['proveAuditInclusion'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One audit entry of the tenant (visible to the caller) */
    get: operations['getAuditEntry'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/webhooks/codehost': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Code-host webhook (GitHub, Gitea, Forgejo): pull requests, reviews, pushes, ping */
    post: operations['codehostWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/webhooks/tracker': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Tracker webhook (Jira-style): issue updated */
    post: operations['trackerWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/tools/standup_summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Standup summary of a user for a date in their time zone (self; admins for users in scope) */
    post: operations['standupSummary'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/tasks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tasks of a user (default: the caller), highest priority first */
    get: operations['listTasks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/tasks/discover': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Discover tasks from connector items (created, merged as duplicate, or updated) */
    post: operations['discoverTasks'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/tasks/{id}/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Mark an open task active or completed */
    post: operations['setTaskStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/tasks/retention/sweep': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Apply the task retention phases now (also run on a schedule) */
    post: operations['sweepTasks'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/briefings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Generate the caller’s briefing (pending until delivered) */
    post: operations['generateBriefing'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/briefings/latest': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The latest briefing of a user (default: the caller) */
    get: operations['latestBriefing'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/briefings/{id}/deliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Deliver a pending briefing through its channel and mark it delivered */
    post: operations['deliverBriefing'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/classifications': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Classification records of the tenant (optionally one dataRef, or one level) */
    get: operations['listClassifications'];
    put?: never;
    /** Layer 1: assign the connector default to data not yet classified */
    post: operations['classifyByConnector'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/classifications/reclassify': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Layer 2: automatic reclassification by the model (raises only; counted and audited as model_call) */
    post: operations['reclassify'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/classifications/override': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Layer 3: admin override to any level, with a reason (audited) */
    put: operations['overrideClassification'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/work-tracking/writes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tracker writes of the outbox (pending, delivered, failed) */
    get: operations['listTrackerWrites'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/work-tracking/writes/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Re-queue a failed tracker write */
    post: operations['retryTrackerWrite'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/exchanges': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Exchanges the caller takes part in (enterprise_admin: the tenant’s; org_admin: their org’s), newest first */
    get: operations['listExchanges'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/exchanges/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One exchange with its full transcript (the humans involved, enterprise_admin, or the org_admin of either human’s org) */
    get: operations['getExchange'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/exchanges/{id}/approve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Approve the request the exchange waits on (commitment, meeting, or an answer); recorded with who and when */
    post: operations['approveExchange'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/exchanges/{id}/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Reject the request the exchange waits on; the exchange is denied */
    post: operations['rejectExchange'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mcp': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** MCP Streamable HTTP: the session’s server-to-client event stream */
    get: operations['mcpGet'];
    put?: never;
    /** MCP Streamable HTTP: JSON-RPC messages to the governed tool proxy (bearer access token for this resource) */
    post: operations['mcpPost'];
    /** MCP Streamable HTTP: end the session */
    delete: operations['mcpDelete'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/.well-known/oauth-protected-resource/mcp': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** OAuth protected-resource metadata (RFC 9728) of the MCP endpoint */
    get: operations['mcpProtectedResourceMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mcp/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tool calls waiting for (or decided by) a human: the caller’s own; an org_admin’s org; the enterprise_admin’s tenant */
    get: operations['listToolCallApprovals'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mcp/approvals/{id}/approve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Approve one pending tool call (this tool, these arguments, once); the assistant calls again to run it */
    post: operations['approveToolCall'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mcp/approvals/{id}/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Reject one pending tool call */
    post: operations['rejectToolCall'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mcp/notices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Calls of `notify` tools the users were told about (scoped as the approvals) */
    get: operations['listToolCallNotices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metrics/prometheus': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics of this process (all tenants: enterprise_admin) */
    get: operations['getPrometheusMetrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/docs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This API reference, rendered (HTML page with Redoc over /openapi.json) */
    get: operations['getApiReference'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/docs/redoc.standalone.js': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Redoc's standalone browser bundle used by the API reference page */
    get: operations['getApiReferenceScript'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/userinfo': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The session user and their effective permissions */
    get: operations['authUserinfo'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Extension: the redirect target of GET /auth/login; completes the login, sets the session cookie and sends the browser on to the landing page (default /auth/userinfo) */
    get: operations['authCallbackBrowser'];
    put?: never;
    /** Exchange an authorization code, create a session and set the session cookie */
    post: operations['authCallback'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Extension: start a login (302 to the issuer) bound to state, PKCE (S256) and a nonce */
    get: operations['authLogin'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Extension: end the session of the cookie and clear it; cached verifications of the user's bearer tokens are dropped */
    post: operations['authLogout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Extension: the caller's live sessions (newest first) */
    get: operations['listOwnSessions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/sessions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Extension: end one of the caller's sessions (its cookie stops working at once) */
    delete: operations['revokeOwnSession'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{userId}/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Extension: a user's live sessions in the caller's tenant (enterprise_admin) */
    get: operations['listUserSessions'];
    put?: never;
    post?: never;
    /** Extension: end every session of a user in the caller's tenant (enterprise_admin) */
    delete: operations['revokeUserSessions'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{userId}/sessions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Extension: end one session of a user in the caller's tenant (enterprise_admin) */
    delete: operations['revokeUserSession'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/connectors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's connectors (disabled ones included) */
    get: operations['listConnectors'];
    put?: never;
    /** Register a connector; only a reference to its credentials is stored */
    post: operations['createConnector'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/connectors/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Disable a connector (its data is kept) */
    delete: operations['disableConnector'];
    options?: never;
    head?: never;
    /** Change a connector (extension): config as a JSON merge patch, credentials_secret_ref, status (active or disabled), or rotate the webhook secret (webhook_secret_ref; the previous one stays valid for rotation_window_seconds, default 86400) */
    patch: operations['updateConnector'];
    trace?: never;
  };
  '/api/v1/tenants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Tenants visible to the caller: reads are tenant-scoped, so the caller's own tenant */
    get: operations['listTenants'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/tenants/{id}/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One tenant (another tenant is tenant_not_found) */
    get: operations['getTenantStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/livez': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: 200 while the process serves requests (extension; no authentication, no rate limit) */
    get: operations['getLiveness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: 200 when the database answers, 503 when it does not (extension; no authentication, no rate limit) */
    get: operations['getReadiness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Health of the gateway and its backing services (200 healthy, 503 degraded) */
    get: operations['getStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Counters of the caller's tenant */
    get: operations['getMetrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This OpenAPI 3.1 document */
    get: operations['getOpenApi'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    PolicyWritten: {
      /** Format: uuid */
      id: string;
      tenantId: string;
      /** @enum {string} */
      scope: 'enterprise' | 'org' | 'team' | 'user';
      scopeId: string;
      /** @enum {string} */
      domain: 'models' | 'actions' | 'integrations' | 'agent-to-agent' | 'features' | 'data' | 'audit';
      name: string;
      version: string;
      content: string;
      /**
       * @default draft
       * @enum {string}
       */
      status: 'draft' | 'active' | 'deprecated';
      createdBy: string;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
      changeReason: string;
      /** @description Extension: valid content that is probably a mistake — a feature-flag name the engine never asks about (`briefing` for `briefings`), with the nearest known name. Present only when there are warnings; the policy is stored all the same. */
      warnings?: {
        /** @description The field, as validation errors name it (`content.briefing`) */
        field: string;
        message: string;
        /** @description The nearest known name */
        suggestion?: string;
      }[];
    };
    ErrorBody: {
      error: string;
      message: string;
      detail?: unknown;
    };
    Policy: {
      /** Format: uuid */
      id: string;
      tenantId: string;
      /** @enum {string} */
      scope: 'enterprise' | 'org' | 'team' | 'user';
      scopeId: string;
      /** @enum {string} */
      domain: 'models' | 'actions' | 'integrations' | 'agent-to-agent' | 'features' | 'data' | 'audit';
      name: string;
      version: string;
      content: string;
      /**
       * @default draft
       * @enum {string}
       */
      status: 'draft' | 'active' | 'deprecated';
      createdBy: string;
      /** Format: date-time */
      createdAt: string;
      /** Format: date-time */
      updatedAt: string;
      changeReason: string;
    };
    DecisionExplanation: {
      userId: string;
      /** @enum {string} */
      domain: 'agent-to-agent' | 'integrations' | 'models' | 'actions' | 'data' | 'features';
      /** @description the effective policy: the meet of every active policy on the chain */
      effective: {
        [key: string]: unknown;
      };
      decision: {
        allow: boolean;
        deny: boolean;
        reason: string;
        constraints: {
          /** @description agent-to-agent: most rounds of the exchange */
          max_rounds?: number;
          /**
           * @description highest level that may be shared (agent-to-agent, integrations), sent to the model (models) or shared externally (data)
           * @enum {string}
           */
          max_classification_shared?: 'public' | 'internal' | 'confidential' | 'restricted';
          /**
           * @description actions: the autonomy of the tool
           * @enum {string}
           */
          autonomy?: 'autonomous' | 'notify' | 'approve' | 'block';
          /** @description models: the only models that may receive confidential or restricted data */
          sensitive_data_models?: string[];
        };
        /** @description ids of the policies the decision was computed from */
        policyIds?: string[];
      };
      /** @description the last policy on the chain that changed the decision (allow, reason or constraints); null: the defaults decided */
      decidedBy: {
        id: string;
        /** @enum {string} */
        scope: 'enterprise' | 'org' | 'team' | 'user';
        scopeId: string;
        name: string;
        version: string;
      } | null;
      /** @description the chain, enterprise first */
      trace: {
        /** @enum {string} */
        scope: 'enterprise' | 'org' | 'team' | 'user';
        scopeId: string;
        policies: {
          id: string;
          /** @enum {string} */
          scope: 'enterprise' | 'org' | 'team' | 'user';
          scopeId: string;
          name: string;
          version: string;
          /** @description keys this policy set first on the chain or made stricter, with their effective value */
          contributed: {
            key: string;
            value: unknown;
          }[];
        }[];
        /** @description the decision had the chain ended at this level */
        decision: {
          allow: boolean;
          reason: string;
        };
      }[];
      /** @description the decision engine that enforces decisions; the explanation is the built-in engine's, so with another engine (opa) its rules decide */
      engine: string;
    };
    AuditEntry: {
      tenantId: string;
      userId: string;
      /** Format: date-time */
      timestamp: string;
      /** @enum {string} */
      actionType:
        | 'tool_invocation'
        | 'data_access'
        | 'model_call'
        | 'policy_decision'
        | 'agent_exchange'
        | 'policy_change';
      /** @default {} */
      actionDetail: {
        [key: string]: unknown;
      };
      /** @default [] */
      dataAccessed: {
        source: string;
        /** @enum {string} */
        classification: 'public' | 'internal' | 'confidential' | 'restricted';
        purpose: string;
      }[];
      /** @default null */
      modelUsed: string | null;
      /** @default null */
      modelTokens: {
        input: number;
        output: number;
      } | null;
      /**
       * @default public
       * @enum {string}
       */
      dataClassification: 'public' | 'internal' | 'confidential' | 'restricted';
      policyApplied: string;
      /** @enum {string} */
      policyResult: 'allow' | 'deny' | 'require_approval';
      /** @default  */
      policyReason: string;
      /** @enum {string} */
      outcome: 'success' | 'denied' | 'error' | 'pending_approval';
      requestId: string;
      id: string;
    };
    AuditCheckpoint: {
      tenantId: string;
      treeSize: number;
      rootHash: string;
      issuedAt: string;
      jws: string;
      origin: string;
      note: string;
      verifierKey: string;
    };
    ConsistencyProof: {
      size1: number;
      size2: number;
      root1: string;
      root2: string;
      proof: string[];
    };
    InclusionProof: {
      entryId: string;
      seq: number;
      leafIndex: number;
      leafHash: string;
      treeSize: number;
      rootHash: string;
      proof: string[];
    };
    WebhookAnswer: {
      /** @enum {string} */
      status: 'processed' | 'duplicate' | 'ignored' | 'pong';
      deliveryId: string;
      event: string;
      action?: string;
      reason?: string;
      tickets?: string[];
      activities?: number;
      writes?: {
        id: string;
        /** @enum {string} */
        tool: 'tracker_update' | 'tracker_transition';
        ticketId: string;
        state: string;
      }[];
    };
    /** @description The sender’s JSON payload, verified by signature over its exact bytes */
    WebhookPayload: {
      [key: string]: unknown;
    };
    StandupSummary: {
      userId: string;
      date: string;
      timeZone: string;
      from: string;
      to: string;
      pullRequests: {
        opened: {
          subject: string;
          title: string;
          url: string;
          tickets: string[];
          at: string;
        }[];
        merged: {
          subject: string;
          title: string;
          url: string;
          tickets: string[];
          at: string;
        }[];
        closed: {
          subject: string;
          title: string;
          url: string;
          tickets: string[];
          at: string;
        }[];
        reviewed: {
          subject: string;
          title: string;
          url: string;
          tickets: string[];
          at: string;
          state: string;
        }[];
      };
      pushes: {
        repository: string;
        branch: string;
        commits: number;
        headline: string;
        tickets: string[];
        at: string;
      }[];
      ticketsUpdated: {
        ticketId: string;
        title: string;
        url: string;
        changes: {
          field: string;
          from: string | null;
          to: string | null;
        }[];
        at: string;
      }[];
      tickets: string[];
      totals: {
        [key: string]: number;
      };
      summaryText: string;
    };
    Task: {
      /** Format: uuid */
      id: string;
      tenantId: string;
      userId: string;
      title: string;
      /** @default  */
      description: string;
      /** @default 0 */
      priorityScore: number;
      /**
       * @default discovered
       * @enum {string}
       */
      status: 'discovered' | 'active' | 'completed' | 'archived' | 'purged';
      /** @default [] */
      sources: {
        system: string;
        id: string;
        url: string;
      }[];
      /** @default null */
      correlationId: string | null;
      /** @default null */
      correlationConfidence: number | null;
      /** @default null */
      deadline: string | null;
      /**
       * @default {
       *       "senderSeniority": null,
       *       "followUpCount": 0,
       *       "slaTimer": null,
       *       "blockingRelationships": []
       *     }
       */
      urgencySignals: {
        /** @default null */
        senderSeniority: number | null;
        /** @default 0 */
        followUpCount: number;
        /** @default null */
        slaTimer: string | null;
        /** @default [] */
        blockingRelationships: string[];
      };
      /**
       * @default internal
       * @enum {string}
       */
      classification: 'public' | 'internal' | 'confidential' | 'restricted';
      /** Format: date-time */
      discoveredAt: string;
      /** @default null */
      completedAt: string | null;
      /** @default null */
      archivedAt: string | null;
      /** @default null */
      purgeAt: string | null;
    };
    Briefing: {
      /** Format: uuid */
      id: string;
      userId: string;
      tenantId: string;
      /** Format: date-time */
      generatedAt: string;
      /** @default [] */
      tasks: {
        /** Format: uuid */
        taskId: string;
        rank: number;
      }[];
      /** @default [] */
      timeBlocks: {
        /** Format: date-time */
        start: string;
        /** Format: date-time */
        end: string;
        taskId: string | null;
        label: string;
      }[];
      /** @default {} */
      autoResponseSummary: {
        [key: string]: unknown;
      };
      /** @default [] */
      orgNewsItems: {
        title: string;
        /** @enum {string} */
        relevance: 'must-read' | 'should-read' | 'nice-to-know' | 'skip';
        source: string;
      }[];
      /** @default [] */
      docChangeAlerts: {
        docId: string;
        summary: string;
        impact: string;
      }[];
      /** @default [] */
      alerts: {
        type: string;
        message: string;
        severity: string;
      }[];
      /** @default {} */
      connectorStatus: {
        [key: string]: 'ok' | 'partial' | 'error' | 'unreachable';
      };
      /** @enum {string} */
      deliveryChannel: 'chat' | 'email' | 'web_ui';
      /** @default null */
      deliveredAt: string | null;
    };
    DataClassification: {
      tenantId: string;
      dataRef: string;
      /** @enum {string} */
      level: 'public' | 'internal' | 'confidential' | 'restricted';
      /** @enum {string} */
      assignedBy: 'connector_default' | 'ai_reclassification' | 'admin_override';
      /** @default null */
      originalLevel: ('public' | 'internal' | 'confidential' | 'restricted') | null;
      /** @default null */
      overrideBy: string | null;
      /** @default null */
      overrideReason: string | null;
      /** Format: date-time */
      assessedAt: string;
    };
    TrackerWrite: {
      /** Format: uuid */
      id: string;
      tenantId: string;
      /** @enum {string} */
      tool: 'tracker_update' | 'tracker_transition';
      ticketId: string;
      /** @default null */
      comment: string | null;
      /** @default null */
      transitionName: string | null;
      /**
       * @default pending
       * @enum {string}
       */
      state: 'pending' | 'delivered' | 'failed';
      /** @default 0 */
      attempts: number;
      /** Format: date-time */
      nextAttemptAt: string;
      /** @default null */
      lastError: string | null;
      /** Format: date-time */
      createdAt: string;
      /** @default null */
      deliveredAt: string | null;
      userId: string;
      requestId: string;
      deliveryId: string;
      policyApplied: string;
      /** @default  */
      policyReason: string;
    };
    Exchange: {
      /** Format: uuid */
      exchangeId: string;
      tenantId: string;
      /** Format: uuid */
      conversationId: string;
      initiatorAgentId: string;
      initiatorUserId: string;
      responderAgentId: string;
      responderUserId: string;
      /** @enum {string} */
      exchangeType: 'information_query' | 'commitment_request' | 'meeting_scheduling';
      /** @default 0 */
      currentRound: number;
      /** @default 3 */
      maxRounds: number;
      /** @enum {string} */
      classificationLevel: 'public' | 'internal' | 'confidential' | 'restricted';
      /**
       * @default in_progress
       * @enum {string}
       */
      outcome: 'in_progress' | 'resolved' | 'escalated' | 'denied' | 'expired';
      /** @default null */
      escalationReason: string | null;
      /** @default [] */
      dataShared: {
        source: string;
        fields: string[];
      }[];
      /** @default [] */
      dataWithheld: {
        reason: string;
        description: string;
      }[];
      policyApplied: string;
      /** @default [] */
      transcript: {
        [key: string]: unknown;
      }[];
      channel: string;
      /** Format: date-time */
      startedAt: string;
      /** @default null */
      endedAt: string | null;
    };
    ToolApproval: {
      id: string;
      tenantId: string;
      userId: string;
      tool: string;
      policyTool: string;
      upstream: string;
      argumentsDigest: string;
      arguments?: string;
      reason: string;
      /** @enum {string} */
      status: 'pending' | 'approved' | 'rejected' | 'consumed' | 'expired';
      createdAt: string;
      expiresAt: string;
      decidedAt?: string;
      decidedBy?: string;
      note?: string;
      consumedAt?: string;
    };
    ToolNotice: {
      id: string;
      tenantId: string;
      userId: string;
      tool: string;
      upstream: string;
      argumentsDigest: string;
      /** @enum {string} */
      outcome: 'success' | 'error';
      at: string;
    };
    Session: {
      /** @description Opaque id of the session (not its secret) */
      id: string;
      createdAt: string;
      /** @description Last recorded use (recorded at most every tenth of the idle window) */
      lastSeenAt: string;
      /** @description End of the idle window; moves forward with use */
      expiresAt: string;
      /** @description The session ends here however often it is used */
      absoluteExpiresAt: string;
      userAgent: string | null;
      ip: string | null;
      /** @description The session of this request */
      current: boolean;
    };
    Connector: {
      id: string;
      type: string;
      tenantId: string;
      credentialsSecretRef: string;
      config: {
        [key: string]: unknown;
      };
      status: string;
      createdAt: string;
      defaultClassification: string;
      lastSyncAt: string | null;
      errorDetails: string | null;
    };
    Tenant: {
      id: string;
      name: string;
      status: string;
      gatewayInstances: number;
      connectorCount: number;
      policyCount: number;
      userCount: number;
      createdAt: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  listPolicies: {
    parameters: {
      query?: {
        scope?: 'enterprise' | 'org' | 'team' | 'user';
        domain?: 'models' | 'actions' | 'integrations' | 'agent-to-agent' | 'features' | 'data' | 'audit';
        status?: 'draft' | 'active' | 'deprecated';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Policies */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Policy'][];
        };
      };
    };
  };
  createPolicy: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          scope: 'enterprise' | 'org' | 'team' | 'user';
          scopeId: string;
          /** @enum {string} */
          domain: 'models' | 'actions' | 'integrations' | 'agent-to-agent' | 'features' | 'data' | 'audit';
          name: string;
          version: string;
          content: string;
          changeReason: string;
        };
      };
    };
    responses: {
      /** @description The created policy (with `warnings`, if any) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PolicyWritten'];
        };
      };
      /** @description missing_type, invalid_type or POLICY_HIERARCHY_VIOLATION */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description POLICY_ALREADY_ACTIVE (detail[0].id: the active identical policy); or idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  getPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The policy */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Policy'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  updatePolicy: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          content: string;
          changeReason: string;
          version?: string;
        };
      };
    };
    responses: {
      /** @description The updated policy (with `warnings`, if any) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PolicyWritten'];
        };
      };
      /** @description missing_type, invalid_type or POLICY_HIERARCHY_VIOLATION */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  deprecatePolicy: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The policy with status deprecated */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Policy'];
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  decide: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              /** @constant */
              domain: 'agent-to-agent';
              input: {
                /** @enum {string} */
                exchange_type: 'information_query' | 'commitment_request' | 'meeting_scheduling';
                initiator_tenant_id: string;
                responder_tenant_id: string;
                initiator_org_unit: string;
                responder_org_unit: string;
                /** @enum {string} */
                classification_level: 'public' | 'internal' | 'confidential' | 'restricted';
              };
            }
          | {
              /** @constant */
              domain: 'integrations';
              input: {
                action: string;
                context: {
                  targetSystem: string;
                  /** @default {} */
                  additional?: {
                    source?: string;
                    trigger?: string;
                  } & {
                    [key: string]: unknown;
                  };
                };
              };
            }
          | {
              /** @constant */
              domain: 'models';
              input: {
                provider: string;
                model: string;
                /** @enum {string} */
                classification_level: 'public' | 'internal' | 'confidential' | 'restricted';
              };
            }
          | {
              /** @constant */
              domain: 'actions';
              input: {
                tool: string;
                /** @enum {string} */
                classification_level?: 'public' | 'internal' | 'confidential' | 'restricted';
              };
            }
          | {
              /** @constant */
              domain: 'data';
              input: {
                /** @enum {string} */
                classification_level: 'public' | 'internal' | 'confidential' | 'restricted';
                destination?: string;
              };
            }
          | {
              /** @constant */
              domain: 'features';
              input: {
                /** @enum {string} */
                feature:
                  | 'briefings'
                  | 'task_discovery'
                  | 'standup_summary'
                  | 'auto_response'
                  | 'ai_reclassification'
                  | 'web_ui';
              };
            };
      };
    };
    responses: {
      /** @description The decision */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            allow: boolean;
            deny: boolean;
            reason: string;
            constraints: {
              /** @description agent-to-agent: most rounds of the exchange */
              max_rounds?: number;
              /**
               * @description highest level that may be shared (agent-to-agent, integrations), sent to the model (models) or shared externally (data)
               * @enum {string}
               */
              max_classification_shared?: 'public' | 'internal' | 'confidential' | 'restricted';
              /**
               * @description actions: the autonomy of the tool
               * @enum {string}
               */
              autonomy?: 'autonomous' | 'notify' | 'approve' | 'block';
              /** @description models: the only models that may receive confidential or restricted data */
              sensitive_data_models?: string[];
            };
            /** @description ids of the policies the decision was computed from */
            policyIds?: string[];
          };
        };
      };
      /** @description missing_type or invalid_type (unknown domain, malformed input) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description POLICY_ENGINE_UNREACHABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  explainDecision: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              /** @description the user the decision is explained for */
              userId: string;
              /** @constant */
              domain: 'agent-to-agent';
              input: {
                /** @enum {string} */
                exchange_type: 'information_query' | 'commitment_request' | 'meeting_scheduling';
                initiator_tenant_id: string;
                responder_tenant_id: string;
                initiator_org_unit: string;
                responder_org_unit: string;
                /** @enum {string} */
                classification_level: 'public' | 'internal' | 'confidential' | 'restricted';
              };
            }
          | {
              /** @description the user the decision is explained for */
              userId: string;
              /** @constant */
              domain: 'integrations';
              input: {
                action: string;
                context: {
                  targetSystem: string;
                  /** @default {} */
                  additional?: {
                    source?: string;
                    trigger?: string;
                  } & {
                    [key: string]: unknown;
                  };
                };
              };
            }
          | {
              /** @description the user the decision is explained for */
              userId: string;
              /** @constant */
              domain: 'models';
              input: {
                provider: string;
                model: string;
                /** @enum {string} */
                classification_level: 'public' | 'internal' | 'confidential' | 'restricted';
              };
            }
          | {
              /** @description the user the decision is explained for */
              userId: string;
              /** @constant */
              domain: 'actions';
              input: {
                tool: string;
                /** @enum {string} */
                classification_level?: 'public' | 'internal' | 'confidential' | 'restricted';
              };
            }
          | {
              /** @description the user the decision is explained for */
              userId: string;
              /** @constant */
              domain: 'data';
              input: {
                /** @enum {string} */
                classification_level: 'public' | 'internal' | 'confidential' | 'restricted';
                destination?: string;
              };
            }
          | {
              /** @description the user the decision is explained for */
              userId: string;
              /** @constant */
              domain: 'features';
              input: {
                /** @enum {string} */
                feature:
                  | 'briefings'
                  | 'task_discovery'
                  | 'standup_summary'
                  | 'auto_response'
                  | 'ai_reclassification'
                  | 'web_ui';
              };
            };
      };
    };
    responses: {
      /** @description The decision and its trace */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DecisionExplanation'];
        };
      };
      /** @description missing_type or invalid_type (unknown domain, malformed input) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND: a user outside the caller’s scope, or unknown */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  queryAudit: {
    parameters: {
      query?: {
        user_id?: string;
        userId?: string;
        action_type?:
          | 'tool_invocation'
          | 'data_access'
          | 'model_call'
          | 'policy_decision'
          | 'agent_exchange'
          | 'policy_change';
        actionType?:
          | 'tool_invocation'
          | 'data_access'
          | 'model_call'
          | 'policy_decision'
          | 'agent_exchange'
          | 'policy_change';
        policy_result?: 'allow' | 'deny' | 'require_approval';
        policyResult?: 'allow' | 'deny' | 'require_approval';
        request_id?: string;
        requestId?: string;
        from?: string;
        to?: string;
        page?: string;
        page_size?: string;
        pageSize?: string;
        order?: 'asc' | 'desc';
        snapshot?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of entries and the total */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            entries: components['schemas']['AuditEntry'][];
            total: number;
          };
        };
      };
      /** @description invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  exportAudit: {
    parameters: {
      query?: {
        user_id?: string;
        userId?: string;
        action_type?:
          | 'tool_invocation'
          | 'data_access'
          | 'model_call'
          | 'policy_decision'
          | 'agent_exchange'
          | 'policy_change';
        actionType?:
          | 'tool_invocation'
          | 'data_access'
          | 'model_call'
          | 'policy_decision'
          | 'agent_exchange'
          | 'policy_change';
        policy_result?: 'allow' | 'deny' | 'require_approval';
        policyResult?: 'allow' | 'deny' | 'require_approval';
        request_id?: string;
        requestId?: string;
        from?: string;
        to?: string;
        format?: 'json' | 'csv';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The export (application/json or text/csv) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            entries: components['schemas']['AuditEntry'][];
            total: number;
          };
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  getAuditCheckpoint: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The checkpoint */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditCheckpoint'];
        };
      };
      /** @description NOT_FOUND: no checkpoint yet */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  proveAuditConsistency: {
    parameters: {
      query: {
        from: string;
        to: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The proof */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ConsistencyProof'];
        };
      };
      /** @description invalid_type: sizes out of range */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  proveAuditInclusion: {
    parameters: {
      query?: {
        treeSize?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The proof */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InclusionProof'];
        };
      };
      /** @description invalid_type: tree size out of range, or no checkpoint yet */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  getAuditEntry: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The entry */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AuditEntry'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  codehostWebhook: {
    parameters: {
      query?: {
        tenant?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload'];
      };
    };
    responses: {
      /** @description Processed, duplicate (nothing changed), ignored (with the reason) or pong */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookAnswer'];
        };
      };
      /** @description missing_type / invalid_type: not JSON, no event, or a payload the event cannot use */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description invalid_webhook_secret: missing or wrong signature */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description policy_denied: policy denies a tracker write of the merge (audited; nothing recorded) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description payload_too_large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description unsupported_media_type: not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description rate_limit_exceeded */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description POLICY_ENGINE_UNREACHABLE or service_unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  trackerWebhook: {
    parameters: {
      query?: {
        tenant?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload'];
      };
    };
    responses: {
      /** @description Processed, duplicate (nothing changed), ignored (with the reason) or pong */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookAnswer'];
        };
      };
      /** @description missing_type / invalid_type: not JSON, no event, or a payload the event cannot use */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description invalid_webhook_secret: missing or wrong signature */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description policy_denied: policy denies a tracker write of the merge (audited; nothing recorded) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description payload_too_large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description unsupported_media_type: not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description rate_limit_exceeded */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description POLICY_ENGINE_UNREACHABLE or service_unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  standupSummary: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          userId: string;
          date: string;
        };
      };
    };
    responses: {
      /** @description The summary */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StandupSummary'];
        };
      };
      /** @description missing_type / invalid_type: bad date or unknown user */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description forbidden: another user outside your scope */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listTasks: {
    parameters: {
      query?: {
        userId?: string;
        status?: 'discovered' | 'active' | 'completed' | 'archived' | 'purged';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Tasks */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            tasks: components['schemas']['Task'][];
            total: number;
          };
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  discoverTasks: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          items: {
            system: string;
            id: string;
            url?: string;
            userId: string;
            title: string;
            description?: string;
            deadline?: string | null;
            urgencySignals?: {
              /** @default null */
              senderSeniority?: number | null;
              /** @default 0 */
              followUpCount?: number;
              /** @default null */
              slaTimer?: string | null;
              /** @default [] */
              blockingRelationships?: string[];
            };
            /** @enum {string} */
            classification?: 'public' | 'internal' | 'confidential' | 'restricted';
          }[];
        };
      };
    };
    responses: {
      /** @description One outcome per item */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            outcomes: {
              [key: string]: unknown;
            }[];
          };
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  setTaskStatus: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          status: 'active' | 'completed';
        };
      };
    };
    responses: {
      /** @description The task */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Task'];
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  sweepTasks: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What changed */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            expired: number;
            archived: number;
            purged: number;
          };
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  generateBriefing: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @default web_ui
           * @enum {string}
           */
          channel?: 'chat' | 'email' | 'web_ui';
          hours?: number;
        };
      };
    };
    responses: {
      /** @description The briefing */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Briefing'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  latestBriefing: {
    parameters: {
      query?: {
        userId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The briefing */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Briefing'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  deliverBriefing: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The delivered briefing */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Briefing'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listClassifications: {
    parameters: {
      query?: {
        level?: 'public' | 'internal' | 'confidential' | 'restricted';
        dataRef?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Records */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            records: components['schemas']['DataClassification'][];
            total: number;
          };
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  classifyByConnector: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          dataRef: string;
          /** @enum {string} */
          connectorType: 'mail' | 'calendar' | 'tracker' | 'codehost' | 'drive';
          /** @enum {string} */
          defaultClassification?: 'public' | 'internal' | 'confidential' | 'restricted';
        };
      };
    };
    responses: {
      /** @description The record (the existing one when already classified) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DataClassification'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  reclassify: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          dataRef: string;
          content: string;
        };
      };
    };
    responses: {
      /** @description The record, the proposal and whether it changed */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            record: components['schemas']['DataClassification'];
            /** @enum {string} */
            proposed: 'public' | 'internal' | 'confidential' | 'restricted';
            changed: boolean;
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description service_unavailable: no model configured */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  overrideClassification: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          dataRef: string;
          /** @enum {string} */
          level: 'public' | 'internal' | 'confidential' | 'restricted';
          reason: string;
        };
      };
    };
    responses: {
      /** @description The record */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DataClassification'];
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listTrackerWrites: {
    parameters: {
      query?: {
        state?: 'pending' | 'delivered' | 'failed';
        deliveryId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Writes */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            writes: components['schemas']['TrackerWrite'][];
            total: number;
          };
        };
      };
    };
  };
  retryTrackerWrite: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The re-queued write */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TrackerWrite'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listExchanges: {
    parameters: {
      query?: {
        outcome?: 'in_progress' | 'resolved' | 'escalated' | 'denied' | 'expired';
        userId?: string;
        page?: number;
        pageSize?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of exchanges and the total */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            exchanges: components['schemas']['Exchange'][];
            total: number;
          };
        };
      };
      /** @description invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  getExchange: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The exchange */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Exchange'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  approveExchange: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          approvalId?: string;
          note?: string;
        };
      };
    };
    responses: {
      /** @description The exchange with the decision recorded */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Exchange'];
        };
      };
      /** @description invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description forbidden (not the human asked) or policy_denied (the decision window passed) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND (no such exchange for the caller, or nothing awaits a decision) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  rejectExchange: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          approvalId?: string;
          note?: string;
        };
      };
    };
    responses: {
      /** @description The exchange with the decision recorded */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Exchange'];
        };
      };
      /** @description invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description forbidden (not the human asked) or policy_denied (the decision window passed) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND (no such exchange for the caller, or nothing awaits a decision) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  mcpGet: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description JSON-RPC answer (application/json or text/event-stream) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Notification or response accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no valid session id, or malformed JSON-RPC */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description authentication_required or invalid_token (WWW-Authenticate names the resource metadata) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description unknown session (or another user’s) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  mcpPost: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description JSON-RPC answer (application/json or text/event-stream) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Notification or response accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no valid session id, or malformed JSON-RPC */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description authentication_required or invalid_token (WWW-Authenticate names the resource metadata) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description unknown session (or another user’s) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  mcpDelete: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description JSON-RPC answer (application/json or text/event-stream) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Notification or response accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no valid session id, or malformed JSON-RPC */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description authentication_required or invalid_token (WWW-Authenticate names the resource metadata) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description unknown session (or another user’s) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  mcpProtectedResourceMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The metadata */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  listToolCallApprovals: {
    parameters: {
      query?: {
        status?: 'pending' | 'approved' | 'rejected' | 'consumed' | 'expired';
        userId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Approvals, newest first, each with the canonical JSON of its arguments (`arguments`, absent on one recorded before they were kept) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            approvals: components['schemas']['ToolApproval'][];
          };
        };
      };
    };
  };
  approveToolCall: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          note?: string;
        };
      };
    };
    responses: {
      /** @description The approval with the decision recorded (and the arguments it was for) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ToolApproval'];
        };
      };
      /** @description forbidden (neither the user nor an admin over them) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND (no such approval, or it is no longer pending) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  rejectToolCall: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          note?: string;
        };
      };
    };
    responses: {
      /** @description The approval with the decision recorded (and the arguments it was for) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ToolApproval'];
        };
      };
      /** @description forbidden (neither the user nor an admin over them) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND (no such approval, or it is no longer pending) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listToolCallNotices: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Notices, newest first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            notices: components['schemas']['ToolNotice'][];
          };
        };
      };
    };
  };
  getPrometheusMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text exposition format 0.0.4 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  getApiReference: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description HTML page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  getApiReferenceScript: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description JavaScript */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  authUserinfo: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The user */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            userId: string;
            email: string;
            roles: string[];
            orgUnit: string | null;
            tenantId: string;
            team: string | null;
            effectivePermissions: {
              canManagePolicies: boolean;
              policyScope: string;
              canQueryAudit: boolean;
              auditScope: string;
            };
          };
        };
      };
      /** @description no_session / session_expired */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  authCallbackBrowser: {
    parameters: {
      query?: {
        code?: string;
        state?: string;
        iss?: string;
        error?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed in; an HTML page that moves on to the landing page */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description invalid_type (state, or the issuer refused the login) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description token_exchange_failed */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  authCallback: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          code: string;
          state?: string;
        };
      };
    };
    responses: {
      /** @description Authenticated; Set-Cookie carries the session */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            authenticated: boolean;
            user: {
              userId: string;
              email: string;
              roles: string[];
              orgUnit: string | null;
            };
          };
        };
      };
      /** @description missing_type / invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description unsupported_media_type */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description token_exchange_failed */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  authLogin: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Redirect to the authorization endpoint */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  authLogout: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Logged out */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            authenticated: false;
          };
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listOwnSessions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Sessions */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            sessions: components['schemas']['Session'][];
            total: number;
          };
        };
      };
    };
  };
  revokeOwnSession: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ended; ending the current session also clears its cookie */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            /** @constant */
            revoked: true;
          };
        };
      };
      /** @description NOT_FOUND (no such session of the caller) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listUserSessions: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        userId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Sessions */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            sessions: components['schemas']['Session'][];
            total: number;
          };
        };
      };
    };
  };
  revokeUserSessions: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        userId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description How many sessions were ended */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            userId: string;
            revoked: number;
          };
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  revokeUserSession: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        userId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ended */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            /** @constant */
            revoked: true;
          };
        };
      };
      /** @description NOT_FOUND (no such session of that user in this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listConnectors: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Connectors */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            connectors: components['schemas']['Connector'][];
            total: number;
          };
        };
      };
      /** @description forbidden */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  createConnector: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          type: 'mail' | 'calendar' | 'tracker' | 'codehost' | 'drive';
          credentials_secret_ref: string;
          /** @default {} */
          config?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description The connector */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Connector'];
        };
      };
      /** @description missing_type / invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description CONNECTOR_ALREADY_ACTIVE: a second active tracker or codehost connector; or idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  disableConnector: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Disabled */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            /** @constant */
            status: 'disabled';
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  updateConnector: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retried write safe: the first answer is stored for 24 h per tenant, user and key and replayed (with `Idempotent-Replayed: true`) for the same request. */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          config?: {
            [key: string]: unknown;
          };
          credentials_secret_ref?: string;
          webhook_secret_ref?: string;
          rotation_window_seconds?: number;
          /** @enum {string} */
          status?: 'active' | 'disabled';
        };
      };
    };
    responses: {
      /** @description The connector after the change */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Connector'];
        };
      };
      /** @description missing_type / invalid_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description CONNECTOR_ALREADY_ACTIVE: re-activating a second tracker or codehost connector; or idempotency_key_in_use: a request with this Idempotency-Key is still running */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
      /** @description idempotency_key_reused: this Idempotency-Key was used for another request */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  listTenants: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Tenants */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            tenants: components['schemas']['Tenant'][];
            total: number;
          };
        };
      };
    };
  };
  getTenantStatus: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The tenant */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Tenant'];
        };
      };
      /** @description tenant_not_found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ErrorBody'];
        };
      };
    };
  };
  getLiveness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Alive */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            status: 'alive';
          };
        };
      };
    };
  };
  getReadiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ready */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ready' | 'not_ready';
            components: {
              database: {
                /** @enum {string} */
                status: 'healthy' | 'unhealthy' | 'migrating';
              };
            };
          };
        };
      };
      /** @description Not ready (same body; the component that is not ready) */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'ready' | 'not_ready';
            components: {
              database: {
                /** @enum {string} */
                status: 'healthy' | 'unhealthy' | 'migrating';
              };
            };
          };
        };
      };
    };
  };
  getStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Healthy */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'healthy' | 'degraded';
            components: {
              gateway: {
                /** @enum {string} */
                status: 'healthy' | 'unhealthy';
              };
              database: {
                /** @enum {string} */
                status: 'healthy' | 'unhealthy';
              };
              connectors: {
                [key: string]: {
                  /** @enum {string} */
                  status: 'healthy' | 'unhealthy';
                  lastFailure?: {
                    reason: string;
                    at: string;
                  };
                };
              };
            } & {
              [key: string]: unknown;
            };
            timestamp: string;
          };
        };
      };
      /** @description Degraded (same body) */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            status: 'healthy' | 'degraded';
            components: {
              gateway: {
                /** @enum {string} */
                status: 'healthy' | 'unhealthy';
              };
              database: {
                /** @enum {string} */
                status: 'healthy' | 'unhealthy';
              };
              connectors: {
                [key: string]: {
                  /** @enum {string} */
                  status: 'healthy' | 'unhealthy';
                  lastFailure?: {
                    reason: string;
                    at: string;
                  };
                };
              };
            } & {
              [key: string]: unknown;
            };
            timestamp: string;
          };
        };
      };
    };
  };
  getMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Metrics */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            activeUsers: number;
            autoResponsesSent: number;
            tasksDiscovered: number;
            modelCalls: number;
            policyEvaluations: number;
            auditEntries: number;
            collectedAt: string;
          };
        };
      };
    };
  };
  getOpenApi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 document */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
