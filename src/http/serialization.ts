import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = SerializerSelector.SerializerFactory;
type Serializer = SerializerSelector.Serializer;

const fastifyDefault: SerializerFactory = SerializerSelector();
const builtSerializers = new Map<string, Serializer>();

/**
 * Fastify's own response serializers (fast-json-stringify, built exactly as Fastify builds them
 * by default), reused by every app built in one process for the same schema. Fastify builds one
 * for every route and status of every app, and response schemas are new objects in each app
 * (most are built inside the route plugins). The server builds one app and gains nothing; the
 * tests build one per test, and building every serializer again for each was about 20 % of a
 * test file's CPU time (test/modules/shops.test.ts: 5.5 of 29 s). A serializer depends only on
 * its schema, the shared schemas it may refer to and the serializer options: together, the key.
 */
export const reusedSerializers: SerializerFactory = (externalSchemas, options) => {
  const build = fastifyDefault(externalSchemas, options);
  const context = `${JSON.stringify(externalSchemas)}\n${JSON.stringify(options)}`;
  return (route) => {
    const key = `${context}\n${JSON.stringify(route.schema)}`;
    let serialize = builtSerializers.get(key);
    if (!serialize) {
      serialize = build(route);
      builtSerializers.set(key, serialize);
    }
    return serialize;
  };
};
