/** `@agentgov/work-tracking/gateway`: the work-tracking domain's routes as a plugin of the gateway kernel. */

export {
  DEFAULT_WEBHOOK_BODY_LIMIT,
  WORK_TRACKING_RATE_LIMITS,
  type WorkTrackingPlugin,
  type WorkTrackingRoutesOptions,
  type WorkTrackingScheduleOptions,
  workTrackingRoutes,
} from './plugin';
export { StandupBodySchema, StandupSummarySchema } from './schemas';
