/**
 * Types of `graphql-ws/use/ws`. graphql-ws 6 declares its entry points through
 * package.json `exports`, which this project's `moduleResolution: node` does not read;
 * Node's `require` does, so only the types need this pointer to the file behind it.
 */
declare module 'graphql-ws/use/ws' {
  export * from 'graphql-ws/dist/use/ws';
}
