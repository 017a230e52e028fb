// The fetch client hey-api generates (test/openapi/generated/hey-api) names the DOM's BodyInit,
// which Node's own types declare only as RequestInit's body: the same type, under the DOM's name.
type BodyInit = NonNullable<RequestInit["body"]>;
