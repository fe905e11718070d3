import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../schemas/common.js';
import { Instant } from '../../schemas/dates.js';

export const RealTimeQuery = Type.Object({
  at: Type.Optional(
    Instant(
      'The instant the figures are for (default: now); visits older than two hours are not kept. Handy for reproducible reads.',
    ),
  ),
});

export const RealTimeVisits = Type.Object({
  at: Timestamp,
  activeVisitors: Type.Integer({
    description: 'Distinct visitors (same IP and user agent) in the last 5 minutes, the current one included.',
  }),
  visitsLastHour: Type.Integer({ description: 'Page views in the last 60 minutes, the current one included.' }),
  series: Type.Array(Type.Object({ minute: Timestamp, visits: Type.Integer() }), {
    minItems: 30,
    maxItems: 30,
    description: 'Page views per minute over the last 30 minutes, oldest first; `minute` is the start of the minute.',
  }),
  topPages: Type.Array(Type.Object({ page: Type.String(), visits: Type.Integer() }), {
    description: 'Up to 10 pages by views in the last hour.',
  }),
});
