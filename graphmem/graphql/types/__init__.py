"""GraphQL types: views of the domain models, and inputs mirroring the domain inputs.

Output types copy a domain model's values (times become ``DateTime``) and keep
the model itself for fields computed from it. Input types only shape the
request; validation stays in the domain models, so every surface rejects the
same values with the same limits. Input defaults are read from those models
so the SDL shows the defaults the domain applies.

The modules here hold types that several areas' operations modules return;
an area's own types stay in its operations module.
"""
