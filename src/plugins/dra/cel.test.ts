// Table tests for DRA CEL selectors, after kube's TestCEL (dynamic-resource-allocation/cel/compile_test.go, 1.37).
import { describe, it } from 'vitest';
import { type Case, drv, expensive, run } from '../../../test/support/dra-cel-cases.ts';

/** kube's cases whose device attributes berth can express (scalar attributes only). */
const kubeCases: Case[] = [
  { name: 'true matches', expression: 'true', match: true },
  { name: 'false does not match', expression: 'false', match: false },
  { name: 'a syntax error fails to compile', expression: '?!', compileError: 'Syntax error' },
  {
    name: 'an int result is a type error',
    expression: '1',
    compileError: 'must evaluate to bool or the unknown type, not int',
  },
  {
    name: 'a missing attribute of a missing domain is no such key (field)',
    expression: `device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))`,
    matchError: 'no such key: noSuchAttr',
  },
  {
    name: 'a missing attribute of a missing domain is no such key (index)',
    expression: `device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))`,
    matchError: 'no such key: noSuchAttr',
  },
  {
    name: 'a missing domain is not in the attributes',
    expression: `"no-such-domain" in device.attributes`,
    match: false,
  },
  {
    name: 'a present domain is in the attributes',
    expression: `"dra.example.com" in device.attributes`,
    attributes: { 'dra.example.com/something': { bool: true } },
    match: true,
  },
  { name: 'the driver name may be empty', expression: `device.driver == ""`, match: true },
  {
    name: 'the driver name is visible',
    expression: `device.driver == "dra.example.com"`,
    driver: drv,
    match: true,
  },
  {
    name: 'an unqualified attribute belongs to the driver domain',
    expression: `device.attributes["dra.example.com"].name`,
    driver: drv,
    attributes: { name: { bool: true } },
    match: true,
  },
  {
    name: 'an unqualified attribute can be looked up by index',
    expression: `device.attributes["dra.example.com"]["name"]`,
    driver: drv,
    attributes: { name: { bool: true } },
    match: true,
  },
  {
    name: 'cel.bind binds a domain',
    expression: `cel.bind(dra, device.attributes["dra.example.com"], dra.name)`,
    driver: drv,
    attributes: { name: { bool: true } },
    match: true,
  },
  {
    name: 'a qualified attribute belongs to its own domain',
    expression: `device.attributes["other.example.com"].name`,
    driver: drv,
    attributes: { 'other.example.com/name': { bool: true } },
    match: true,
  },
  {
    name: 'an int attribute is a CEL int',
    expression: `device.attributes["dra.example.com"].name > 0`,
    driver: drv,
    attributes: { name: { int: 1 } },
    match: true,
  },
  {
    name: 'a string attribute is a CEL string',
    expression: `device.attributes["dra.example.com"].name == "fish"`,
    driver: drv,
    attributes: { name: { string: 'fish' } },
    match: true,
  },
  {
    name: 'exists on an int attribute fails at evaluation',
    expression: `device.attributes["dra.example.com"].name.exists(x, x > 0)`,
    driver: drv,
    attributes: { name: { int: 1 } },
    matchError: 'expected iterable type',
  },
  {
    name: 'includes on a string attribute is equality (true)',
    expression: `device.attributes["dra.example.com"].attr.includes("fish")`,
    driver: drv,
    attributes: { attr: { string: 'fish' } },
    match: true,
  },
  {
    name: 'includes on a bool attribute is equality (false)',
    expression: `device.attributes["dra.example.com"].name.includes(true)`,
    driver: drv,
    attributes: { name: { bool: false } },
    match: false,
  },
  {
    name: 'includes on an int attribute is equality (false)',
    expression: `device.attributes["dra.example.com"].name.includes(1)`,
    driver: drv,
    attributes: { name: { int: 2 } },
    match: false,
  },
  {
    name: 'includes on a version attribute compares versions',
    expression: `device.attributes["dra.example.com"].name.includes(semver("1.0.0"))`,
    driver: drv,
    attributes: { name: { version: '1.0.0' } },
    match: true,
  },
  {
    name: 'a version attribute is a Semver',
    expression: `device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))`,
    driver: drv,
    attributes: { name: { version: '1.0.0' } },
    match: true,
  },
  {
    name: 'semver and isSemver normalize a v prefix when asked',
    expression: `device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)`,
    driver: drv,
    attributes: { name: { version: '1.0.0' } },
    match: true,
  },
  {
    name: 'exists on a version attribute fails at evaluation',
    expression: `device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1")))`,
    driver: drv,
    attributes: { name: { version: '1.0.0' } },
    matchError: 'expected iterable type',
  },
  {
    name: 'a capacity is a Quantity',
    expression: `device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))`,
    driver: drv,
    capacity: { name: { value: '1Mi' } },
    match: true,
  },
  {
    name: 'a present capacity passes its in-check',
    expression: `"name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))`,
    driver: drv,
    capacity: { name: { value: '1Mi' } },
    match: true,
  },
  {
    name: 'a missing capacity of a missing domain is guarded by an in-check',
    expression: `!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))`,
    match: true,
  },
  {
    name: 'every attribute kind and capacity in one selector',
    expression: `
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
`,
    driver: drv,
    attributes: {
      bool: { bool: true },
      int: { int: 1 },
      string: { string: 'fish' },
      version: { version: '1.0.0' },
    },
    capacity: { quantity: { value: '1Mi' } },
    match: true,
  },
  {
    name: 'many attributes of one domain',
    expression: `device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c`,
    driver: drv,
    attributes: { a: { bool: true }, b: { bool: true }, c: { bool: true } },
    match: true,
  },
  {
    name: 'exists_one iterates attribute domains',
    expression: `device.attributes.exists_one(x, x == "dra.example.com")`,
    driver: drv,
    attributes: { services: { string: 'some_example_value' } },
    match: true,
  },
  {
    name: 'exists_one iterates attribute ids',
    expression: `device.attributes["dra.example.com"].exists_one(x, x == "services")`,
    driver: drv,
    attributes: { services: { string: 'some_example_value' } },
    match: true,
  },
  {
    name: 'split works on a string attribute',
    expression: `device.attributes["dra.example.com"].services.split("example").size() >= 2`,
    driver: drv,
    attributes: { services: { string: 'some_example_value' } },
    match: true,
  },
  {
    name: 'matches works on a string attribute',
    expression: `device.attributes["dra.example.com"].services.matches("[^a]?sym")`,
    driver: drv,
    attributes: { services: { string: 'asymetric' } },
    match: true,
  },
  {
    name: 'exists_one iterates capacity domains',
    expression: `device.capacity.exists_one(x, x == "dra.example.com")`,
    driver: drv,
    capacity: { memory: { value: '1Mi' } },
    match: true,
  },
  {
    name: 'exists_one iterates capacity ids',
    expression: `device.capacity["dra.example.com"].exists_one(x, x == "memory")`,
    driver: drv,
    capacity: { memory: { value: '1Mi' } },
    match: true,
  },
  {
    name: 'seven nested comprehensions exceed the runtime cost limit',
    expression: expensive,
    driver: drv,
    matchError: 'actual cost limit exceeded',
  },
  {
    name: 'allowMultipleAllocations is visible',
    expression: 'device.allowMultipleAllocations == true',
    allowMultipleAllocations: true,
    driver: drv,
    match: true,
  },
  {
    name: 'allowMultipleAllocations defaults to false',
    expression: 'device.allowMultipleAllocations == false',
    driver: drv,
    match: true,
  },
];

describe('DRA CEL selectors (kube compile_test.go cases)', () => {
  it.each(kubeCases)('$name', run);
});
