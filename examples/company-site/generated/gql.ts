/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query LiveCompanyPage($id: ID!) @live {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}": typeof types.LiveCompanyPageDocument,
    "query CompanyPage($id: ID!) {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}": typeof types.CompanyPageDocument,
};
const documents: Documents = {
    "query LiveCompanyPage($id: ID!) @live {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}": types.LiveCompanyPageDocument,
    "query CompanyPage($id: ID!) {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}": types.CompanyPageDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query LiveCompanyPage($id: ID!) @live {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}"): (typeof documents)["query LiveCompanyPage($id: ID!) @live {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query CompanyPage($id: ID!) {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}"): (typeof documents)["query CompanyPage($id: ID!) {\n  factory(id: $id) {\n    id\n    name\n    isOpen\n    type\n    inventory {\n      totalWeight\n      items {\n        item\n        amount\n      }\n    }\n    catalogue: siteDocument(name: \"catalogue\") {\n      version\n      updatedAt\n      value\n    }\n    counter {\n      items {\n        item\n        price\n        amount\n      }\n    }\n    sellOffers {\n      item\n      pricePerUnit\n      availableAmount\n    }\n    buyOffers {\n      item\n      pricePerUnit\n      listPrice\n    }\n    vehicles {\n      name\n      numberPlate\n      distance\n      engine\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;