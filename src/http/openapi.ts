import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { OptionalKind } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { description, tagGroups, tags } from './openapi-tags.js';
import { withMultipartBody } from './uploads.js';

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests and
 * serialise responses. Choices the contract leaves open are written down in its introduction and
 * tag explanations, Markdown files under docs/api/ (openapi-tags.ts reads them).
 */

/**
 * A query parameter with a default is not required of the client, whatever the schema's
 * `required` says for the handler's sake: the validator fills it in before the handler runs
 * (pageNumber, pageSize).
 */
function withDefaultsOptional(schema: unknown): unknown {
  const object = schema as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (!object.properties || !object.required) return schema;
  return { ...object, required: object.required.filter((name) => object.properties![name]?.default === undefined) };
}

/** Redoc and Scalar show the groups as sections (`x-tagGroups`); Swagger UI shows the tags in their order. */
const tagGroupsExtension = {
  'x-tagGroups': tagGroups.map((group) => ({ name: group.name, tags: group.tags.map((tag) => tag.name) })),
};

/** Marks, between `transform` and `transformObject`, an operation whose body may be left out. */
const OPTIONAL_BODY = 'x-shopd-optional-body';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'shopd', version: '0.1.0', description },
      tags,
      ...tagGroupsExtension,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key from `shopd keys create`; the bare key without "Bearer" is accepted too.',
          },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: 'shopd_session',
            description:
              "The web admin's session, from `POST /self/session` (see *Account*). Writes with it (anything but GET, HEAD, OPTIONS) also need the session's CSRF token in `X-CSRF-Token`; a request with an `Authorization` header is authenticated by its key instead. Only on the operator's hosts (PUBLIC_URL's, `ADMIN_HOSTS`): elsewhere the cookie is not accepted (404).",
          },
          customerSession: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A customer session token of one shop, from `POST /v2/public/shops/{shopId}/customer/session` (see *Customer area*).',
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      // Owner routes need the key or the web admin's session; public routes (the sign-in among them) and system
      // routes do not, unless they name a customer session.
      const owner = url.startsWith('/self') && !route.config?.public;
      const security = owner ? [{ apiKey: [] }, { cookieAuth: [] }] : (schema?.security ?? []);
      const documented = { ...withMultipartBody(schema), security } as typeof schema & { querystring?: unknown };
      if (documented.querystring) documented.querystring = withDefaultsOptional(documented.querystring);
      // A body schema wrapped in Type.Optional: the request may have no body at all (transformObject below).
      const body = (schema as { body?: Record<symbol, unknown> } | undefined)?.body;
      if (body?.[OptionalKind] === 'Optional') (documented as Record<string, unknown>)[OPTIONAL_BODY] = true;
      return { schema: documented, url };
    },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      for (const methods of Object.values(openapiObject.paths ?? {}))
        for (const operation of Object.values(methods as Record<string, Record<string, unknown>>)) {
          if (typeof operation !== 'object' || !operation || !(OPTIONAL_BODY in operation)) continue;
          delete operation[OPTIONAL_BODY];
          (operation.requestBody as { required: boolean }).required = false;
        }
      return openapiObject;
    },
  });
  // The reference page gets the security headers of the app's other pages (issue 36): its
  // scripts, styles and the document from this origin only, never framed, no referrer sent on.
  // Swagger UI sets style attributes from its scripts, hence 'unsafe-inline' for styles only.
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(DOCS_HEADERS)) void reply.header(name, value);
      return payload;
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true },
    });
  });
}

export const DOCS_HEADERS = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
} as const;
