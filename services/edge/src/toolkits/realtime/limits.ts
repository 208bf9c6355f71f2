// Spec "Limits → Sizes": request body caps of the realtime toolkit's public routes.

/** POST /messages. */
export const PUBLISH_BODY_LIMIT_BYTES = 262_144;
/** Every other realtime route (POST /tokens/issue, and the GET routes, which take no body). */
export const OTHER_ROUTES_BODY_LIMIT_BYTES = 65_536;
