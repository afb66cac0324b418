{{/*
Names and labels.
*/}}
{{- define "kafscale-proxy.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release name alone when it already says what this is, so "kafscale-proxy" stays short. */}}
{{- define "kafscale-proxy.fullname" -}}
{{- $name := include "kafscale-proxy.name" . -}}
{{- $full := .Values.fullnameOverride -}}
{{- if not $full -}}
{{- $full = ternary .Release.Name (printf "%s-%s" .Release.Name $name) (contains $name .Release.Name) -}}
{{- end -}}
{{- $full | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kafscale-proxy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kafscale-proxy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kafscale-proxy.labels" -}}
{{ include "kafscale-proxy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/component: proxy
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "kafscale-proxy.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "kafscale-proxy.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/*
A value as the proxy reads it. Numbers from values.yaml reach templates as float64, which
would print 5368709120 as 5.36870912e+09: whole numbers are printed as integers.
*/}}
{{- define "kafscale-proxy.envValue" -}}
{{- if and (kindIs "float64" .) (eq (floor .) .) -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{- define "kafscale-proxy.advertisedHost" -}}
{{- if and (eq .Values.advertiseMode "sni") .Values.sni.bootstrapHost -}}
{{- .Values.sni.bootstrapHost -}}
{{- else if .Values.advertisedHost -}}
{{- .Values.advertisedHost -}}
{{- else if .Values.service.externalHostname -}}
{{- .Values.service.externalHostname -}}
{{- else -}}
{{- printf "%s.%s.svc.%s" (include "kafscale-proxy.fullname" .) .Release.Namespace .Values.clusterDomain -}}
{{- end -}}
{{- end -}}

{{- define "kafscale-proxy.lfsTlsDir" -}}/etc/kafscale/lfs-tls{{- end -}}
{{- define "kafscale-proxy.etcdTlsDir" -}}/etc/kafscale/etcd-tls{{- end -}}
{{- define "kafscale-proxy.tlsDir" -}}/etc/kafscale/tls{{- end -}}
{{- define "kafscale-proxy.saslDir" -}}/etc/kafscale/sasl{{- end -}}
{{- define "kafscale-proxy.aclDir" -}}/etc/kafscale/acl{{- end -}}
{{- define "kafscale-proxy.backendTlsDir" -}}/etc/kafscale/backend-tls{{- end -}}
{{- define "kafscale-proxy.gatewayDir" -}}/etc/kafscale/gateway{{- end -}}

{{/*
The gateway file's sections written in values (virtualClusters, audit, validation, encryption,
lfsResolve),
as a map of the non-empty ones: the file the chart renders, or empty when the file is the user's.
*/}}
{{- define "kafscale-proxy.gatewaySections" -}}
{{- $g := .Values.gateway -}}
{{- $s := dict -}}
{{- range $key := list "virtualClusters" "audit" "validation" "encryption" "lfsResolve" -}}
{{- with get $g $key }}{{ $_ := set $s $key . }}{{ end -}}
{{- end -}}
{{- toYaml $s -}}
{{- end -}}

{{/* "true" when the chart renders the gateway file from values. */}}
{{- define "kafscale-proxy.gatewayRendered" -}}
{{- if gt (len (include "kafscale-proxy.gatewaySections" . | fromYaml)) 0 }}true{{ end -}}
{{- end -}}

{{/*
Where the gateway file comes from, as "configMap <name>" or "secret <name>": the chart's own
ConfigMap, gateway.existingConfigMap or gateway.existingSecret; empty without one.
*/}}
{{- define "kafscale-proxy.gatewaySource" -}}
{{- if include "kafscale-proxy.gatewayRendered" . -}}
configMap {{ printf "%s-gateway" (include "kafscale-proxy.fullname" .) }}
{{- else if .Values.gateway.existingConfigMap.name -}}
configMap {{ .Values.gateway.existingConfigMap.name }}
{{- else if .Values.gateway.existingSecret.name -}}
secret {{ .Values.gateway.existingSecret.name }}
{{- end -}}
{{- end -}}

{{/* The ConfigMap or Secret holding the gateway file; empty without one. */}}
{{- define "kafscale-proxy.gatewayConfigMap" -}}
{{- with include "kafscale-proxy.gatewaySource" . }}{{ last (splitList " " .) }}{{ end -}}
{{- end -}}

{{/* The key of the gateway file in that ConfigMap or Secret. */}}
{{- define "kafscale-proxy.gatewayKey" -}}
{{- if include "kafscale-proxy.gatewayRendered" . -}}
gateway.yaml
{{- else if .Values.gateway.existingConfigMap.name -}}
{{- .Values.gateway.existingConfigMap.key -}}
{{- else -}}
{{- .Values.gateway.existingSecret.key -}}
{{- end -}}
{{- end -}}

{{/*
What of the rendered gateway file the proxy applies only at a start (docs/operations.md,
"Reconfiguring a running proxy"): the audit section, and the virtual clusters placed by a listener
or TLS server name of their own. Its checksum rolls the pods; a change elsewhere in the file is
applied live by the running pods, which follow the mounted file.
*/}}
{{- define "kafscale-proxy.gatewayRestartParts" -}}
{{- $g := .Values.gateway -}}
{{- $fixed := list -}}
{{- range $g.virtualClusters }}{{ if or .listener .sniHostSuffix }}{{ $fixed = append $fixed . }}{{ end }}{{ end -}}
{{- dict "audit" $g.audit "virtualClusters" $fixed | toYaml -}}
{{- end -}}

{{/* The gateway file as the proxy reads it (docs/tenants.md, docs/governance.md), from values. */}}
{{- define "kafscale-proxy.gatewayFile" -}}
{{- include "kafscale-proxy.gatewaySections" . -}}
{{- end -}}

{{/*
The ports of virtual clusters with a listener of their own, as a YAML list of {name, port}:
the listener's port (tenant-<i>) and, in ports mode, its broker ports brokerPortBase + id
(t<i>-b<id>, brokerPorts.count of them). Port names stay within Kubernetes' 15 characters.
*/}}
{{- define "kafscale-proxy.tenantPorts" -}}
{{- $ports := list -}}
{{- range $i, $vc := .Values.gateway.virtualClusters -}}
{{- with $vc.listener -}}
{{- $ports = append $ports (dict "name" (printf "tenant-%d" $i) "port" (last (splitList ":" .) | int)) -}}
{{- if and (eq $.Values.advertiseMode "ports") $vc.brokerPortBase -}}
{{- range $id := until (int $.Values.brokerPorts.count) -}}
{{- $ports = append $ports (dict "name" (printf "t%d-b%d" $i $id) "port" (add $vc.brokerPortBase $id)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $ports -}}
{{- end -}}

{{/*
The TLS server names clients send in advertiseMode sni, as a YAML list: the bootstrap host, one
wildcard for every broker (which covers only the first label), and one for each virtual cluster
placed by sniHostSuffix. Used by the certificate, the Ingress and the TLSRoute.
*/}}
{{- define "kafscale-proxy.sniHosts" -}}
{{- $names := list (include "kafscale-proxy.advertisedHost" .) -}}
{{- $labels := splitList "." .Values.sni.brokerHostPattern -}}
{{- if or (not (contains "$(nodeId)" (first $labels))) (lt (len $labels) 3) -}}
{{- fail "advertiseMode sni with a certificate, Ingress or TLSRoute from the chart needs $(nodeId) in the first label of sni.brokerHostPattern (broker-$(nodeId).kafka.example.com), so *.kafka.example.com covers every broker; or list the names in tls.certManager.dnsNames" -}}
{{- end -}}
{{- $names = append $names (printf "*.%s" (rest $labels | join ".")) -}}
{{- range .Values.gateway.virtualClusters -}}
{{- with .sniHostSuffix }}{{ $names = append $names (printf "*.%s" (lower .)) }}{{ end -}}
{{- end -}}
{{- toYaml ($names | uniq) -}}
{{- end -}}

{{/* The Secret holding the Kafka listener's certificate: tls.secretName, else the one cert-manager writes. */}}
{{- define "kafscale-proxy.tlsSecretName" -}}
{{- .Values.tls.secretName | default (printf "%s-tls" (include "kafscale-proxy.fullname" .)) -}}
{{- end -}}

{{/*
Every plain setting, as a YAML map of variable name to string: first the chart's own (listen
addresses from the ports, so probes and Service agree), then the first-class values, then
.Values.config, which wins. The ConfigMap and the Deployment's env are both built from it.
*/}}
{{- define "kafscale-proxy.settings" -}}
{{- $v := .Values -}}
{{- $s := dict -}}
{{- $_ := set $s "KAFSCALE_PROXY_ADVERTISED_HOST" (include "kafscale-proxy.advertisedHost" .) -}}
{{- $_ := set $s "KAFSCALE_PROXY_ADVERTISED_PORT" (include "kafscale-proxy.envValue" ($v.advertisedPort | default $v.service.ports.kafka)) -}}
{{- $_ := set $s "KAFSCALE_PROXY_ADVERTISE_MODE" $v.advertiseMode -}}
{{- if eq $v.advertiseMode "ports" -}}
{{- $_ := set $s "KAFSCALE_PROXY_BROKER_PORT_BASE" (include "kafscale-proxy.envValue" $v.brokerPorts.base) -}}
{{- $_ := set $s "KAFSCALE_PROXY_BROKER_PORT_COUNT" (include "kafscale-proxy.envValue" $v.brokerPorts.count) -}}
{{- end -}}
{{- if eq $v.advertiseMode "sni" -}}
{{- $_ := set $s "KAFSCALE_PROXY_SNI_BOOTSTRAP_HOST" (include "kafscale-proxy.advertisedHost" .) -}}
{{- $_ := set $s "KAFSCALE_PROXY_SNI_BROKER_HOST_PATTERN" $v.sni.brokerHostPattern -}}
{{- end -}}
{{- $_ := set $s "KAFSCALE_PROXY_BACKEND_CACHE_TTL_SEC" (include "kafscale-proxy.envValue" $v.backendCacheTTLSeconds) -}}
{{- with $v.etcd.endpoints }}{{ $_ := set $s "KAFSCALE_PROXY_ETCD_ENDPOINTS" (join "," .) }}{{ end -}}
{{- with $v.etcd.username }}{{ $_ := set $s "KAFSCALE_PROXY_ETCD_USERNAME" . }}{{ end -}}
{{- if $v.etcd.tls.enabled -}}
{{- $dir := include "kafscale-proxy.etcdTlsDir" . -}}
{{- $_ := set $s "KAFSCALE_PROXY_ETCD_CA_FILE" (printf "%s/ca.crt" $dir) -}}
{{- if $v.etcd.tls.mutual -}}
{{- $_ := set $s "KAFSCALE_PROXY_ETCD_CERT_FILE" (printf "%s/tls.crt" $dir) -}}
{{- $_ := set $s "KAFSCALE_PROXY_ETCD_KEY_FILE" (printf "%s/tls.key" $dir) -}}
{{- end -}}
{{- end -}}
{{- with $v.backends }}{{ $_ := set $s "KAFSCALE_PROXY_BACKENDS" (join "," .) }}{{ end -}}
{{- if $v.tls.enabled -}}
{{- $dir := include "kafscale-proxy.tlsDir" . -}}
{{- $_ := set $s "KAFSCALE_PROXY_TLS_ENABLED" "true" -}}
{{- $_ := set $s "KAFSCALE_PROXY_TLS_CERT_FILE" (printf "%s/tls.crt" $dir) -}}
{{- $_ := set $s "KAFSCALE_PROXY_TLS_KEY_FILE" (printf "%s/tls.key" $dir) -}}
{{- if ne $v.tls.clientAuth "none" -}}
{{- $_ := set $s "KAFSCALE_PROXY_TLS_CLIENT_CA_FILE" (printf "%s/ca.crt" $dir) -}}
{{- $_ := set $s "KAFSCALE_PROXY_TLS_REQUIRE_CLIENT_CERT" (toString (eq $v.tls.clientAuth "required")) -}}
{{- end -}}
{{- end -}}
{{- with $v.sasl.mechanisms }}{{ $_ := set $s "KAFSCALE_PROXY_SASL_MECHANISMS" (join "," .) }}{{ end -}}
{{- with $v.sasl.credentialsSecret }}{{ $_ := set $s "KAFSCALE_PROXY_SASL_CREDENTIALS_FILE" (printf "%s/%s" (include "kafscale-proxy.saslDir" $) $v.sasl.credentialsKey) }}{{ end -}}
{{- if or $v.acl.configMap $v.acl.secret -}}
{{- $_ := set $s "KAFSCALE_PROXY_ACL_FILE" (printf "%s/%s" (include "kafscale-proxy.aclDir" .) $v.acl.key) -}}
{{- end -}}
{{- $b := $v.backend -}}
{{- if $b.tls.enabled -}}
{{- $dir := include "kafscale-proxy.backendTlsDir" . -}}
{{- $_ := set $s "KAFSCALE_PROXY_BACKEND_TLS_ENABLED" "true" -}}
{{- if $b.tls.secretName -}}
{{- $_ := set $s "KAFSCALE_PROXY_BACKEND_TLS_CA_FILE" (printf "%s/ca.crt" $dir) -}}
{{- if $b.tls.mutual -}}
{{- $_ := set $s "KAFSCALE_PROXY_BACKEND_TLS_CERT_FILE" (printf "%s/tls.crt" $dir) -}}
{{- $_ := set $s "KAFSCALE_PROXY_BACKEND_TLS_KEY_FILE" (printf "%s/tls.key" $dir) -}}
{{- end -}}
{{- end -}}
{{- if $b.tls.insecureSkipHostnameVerify }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_TLS_INSECURE_SKIP_HOSTNAME_VERIFY" "true" }}{{ end -}}
{{- end -}}
{{- with $b.sasl.mechanism }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_MECHANISM" . }}{{ end -}}
{{- with $b.sasl.username }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_USERNAME" . }}{{ end -}}
{{- with $b.sasl.oauth.tokenEndpointUrl }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_TOKEN_ENDPOINT_URL" . }}{{ end -}}
{{- with $b.sasl.oauth.clientId }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_ID" . }}{{ end -}}
{{- with $b.sasl.oauth.scope }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_SCOPE" . }}{{ end -}}
{{- if $v.lfs.enabled -}}
{{- $s3 := $v.lfs.s3 -}}
{{- with $s3.bucket }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_BUCKET" . }}{{ end -}}
{{- with $s3.region }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_REGION" . }}{{ end -}}
{{- with $s3.endpoint }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_ENDPOINT" . }}{{ end -}}
{{- with $s3.publicEndpoint }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_PUBLIC_ENDPOINT" . }}{{ end -}}
{{- if not (kindIs "invalid" $s3.forcePathStyle) }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_FORCE_PATH_STYLE" (toString $s3.forcePathStyle) }}{{ end -}}
{{- $_ := set $s "KAFSCALE_S3_NAMESPACE" ($s3.namespace | default .Release.Namespace) -}}
{{- if $v.lfs.tls.enabled -}}
{{- $dir := include "kafscale-proxy.lfsTlsDir" . -}}
{{- $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_TLS_ENABLED" "true" -}}
{{- $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_TLS_CERT_FILE" (printf "%s/tls.crt" $dir) -}}
{{- $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_TLS_KEY_FILE" (printf "%s/tls.key" $dir) -}}
{{- if $v.lfs.tls.verifyClientCert -}}
{{- $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_TLS_CLIENT_CA_FILE" (printf "%s/ca.crt" $dir) -}}
{{- $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_TLS_REQUIRE_CLIENT_CERT" (toString $v.lfs.tls.requireClientCert) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $name, $value := $v.config -}}
{{- if and (not (kindIs "invalid" $value)) (ne (toString $value) "") -}}
{{- $_ := set $s $name (include "kafscale-proxy.envValue" $value) -}}
{{- end -}}
{{- end -}}
{{- /* Owned by the chart: the Service, the probes and the grace period depend on them. */ -}}
{{- $_ := set $s "KAFSCALE_PROXY_ADDR" (printf ":%s" (include "kafscale-proxy.envValue" $v.ports.kafka)) -}}
{{- $_ := set $s "KAFSCALE_PROXY_HEALTH_ADDR" (printf ":%s" (include "kafscale-proxy.envValue" $v.ports.health)) -}}
{{- $_ := set $s "KAFSCALE_PROXY_DRAIN_TIMEOUT_MS" (include "kafscale-proxy.envValue" $v.drainTimeoutMs) -}}
{{- with include "kafscale-proxy.gatewayConfigMap" . -}}
{{- $_ := set $s "KAFSCALE_PROXY_GATEWAY_FILE" (printf "%s/%s" (include "kafscale-proxy.gatewayDir" $) (include "kafscale-proxy.gatewayKey" $)) -}}
{{- end -}}
{{- if $v.lfs.enabled -}}
{{- $_ := set $s "KAFSCALE_PROXY_LFS_ENABLED" "true" -}}
{{- $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_ADDR" (printf ":%s" (include "kafscale-proxy.envValue" $v.ports.lfs)) -}}
{{- end -}}
{{- toYaml $s -}}
{{- end -}}

{{/*
Secret settings given inline, as a YAML map of variable name to value. They go to the chart's
Secret, never to the ConfigMap.
*/}}
{{- define "kafscale-proxy.secretSettings" -}}
{{- $v := .Values -}}
{{- $s := dict -}}
{{- with $v.etcd.password }}{{ $_ := set $s "KAFSCALE_PROXY_ETCD_PASSWORD" . }}{{ end -}}
{{- with $v.admin.token }}{{ $_ := set $s "KAFSCALE_PROXY_ADMIN_TOKEN" . }}{{ end -}}
{{- with $v.lfs.apiKey }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_HTTP_API_KEY" . }}{{ end -}}
{{- with $v.lfs.s3.accessKey }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_ACCESS_KEY" . }}{{ end -}}
{{- with $v.lfs.s3.secretKey }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_SECRET_KEY" . }}{{ end -}}
{{- with $v.lfs.s3.sessionToken }}{{ $_ := set $s "KAFSCALE_LFS_PROXY_S3_SESSION_TOKEN" . }}{{ end -}}
{{- with $v.backend.sasl.password }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD" . }}{{ end -}}
{{- with $v.backend.sasl.oauth.clientSecret }}{{ $_ := set $s "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET" . }}{{ end -}}
{{- toYaml $s -}}
{{- end -}}

{{/* The secret names that can come from existingSecret: the LFS ones only with LFS on. */}}
{{- define "kafscale-proxy.existingSecretNames" -}}
{{- $names := list "KAFSCALE_PROXY_ETCD_PASSWORD" "KAFSCALE_PROXY_ADMIN_TOKEN" "KAFSCALE_PROXY_BACKEND_SASL_PASSWORD" "KAFSCALE_PROXY_BACKEND_SASL_OAUTH_CLIENT_SECRET" -}}
{{- if .Values.lfs.enabled -}}
{{- $names = concat $names (list "KAFSCALE_LFS_PROXY_HTTP_API_KEY" "KAFSCALE_LFS_PROXY_S3_ACCESS_KEY" "KAFSCALE_LFS_PROXY_S3_SECRET_KEY" "KAFSCALE_LFS_PROXY_S3_SESSION_TOKEN") -}}
{{- end -}}
{{- toYaml $names -}}
{{- end -}}

{{/* Refuses value combinations that would render a pod that cannot work. */}}
{{- define "kafscale-proxy.validate" -}}
{{- $settings := include "kafscale-proxy.settings" . | fromYaml -}}
{{- if .Values.lfs.enabled -}}
{{- if not (hasKey $settings "KAFSCALE_LFS_PROXY_S3_BUCKET") -}}
{{- fail "lfs.enabled needs lfs.s3.bucket" -}}
{{- end -}}
{{- if not (hasKey $settings "KAFSCALE_LFS_PROXY_S3_REGION") -}}
{{- fail "lfs.enabled needs lfs.s3.region" -}}
{{- end -}}
{{- if and .Values.lfs.tls.enabled (not .Values.lfs.tls.secretName) -}}
{{- fail "lfs.tls.enabled needs lfs.tls.secretName" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.etcd.tls.enabled (not .Values.etcd.tls.secretName) -}}
{{- fail "etcd.tls.enabled needs etcd.tls.secretName" -}}
{{- end -}}
{{- $tls := .Values.tls -}}
{{- if eq .Values.advertiseMode "sni" -}}
{{- if not $tls.enabled -}}
{{- fail "advertiseMode sni needs tls.enabled: the proxy tells brokers apart by the TLS server name clients send" -}}
{{- end -}}
{{- if not (contains "$(nodeId)" .Values.sni.brokerHostPattern) -}}
{{- fail "advertiseMode sni needs sni.brokerHostPattern, with $(nodeId) where each broker's id goes (broker-$(nodeId).kafka.example.com)" -}}
{{- end -}}
{{- end -}}
{{- if and $tls.enabled (not $tls.secretName) (not $tls.certManager.enabled) -}}
{{- fail "tls.enabled needs tls.secretName or tls.certManager.enabled" -}}
{{- end -}}
{{- if and $tls.certManager.enabled (not $tls.enabled) -}}
{{- fail "tls.certManager.enabled needs tls.enabled: the certificate would be made and not used" -}}
{{- end -}}
{{- if and $tls.certManager.enabled (not $tls.certManager.issuerRef.name) -}}
{{- fail "tls.certManager.enabled needs tls.certManager.issuerRef.name" -}}
{{- end -}}
{{- if and (ne $tls.clientAuth "none") (not $tls.enabled) -}}
{{- fail (printf "tls.clientAuth %s needs tls.enabled" $tls.clientAuth) -}}
{{- end -}}
{{- $saslNeedsCredentials := false -}}
{{- range .Values.sasl.mechanisms }}{{ if ne . "OAUTHBEARER" }}{{ $saslNeedsCredentials = true }}{{ end }}{{ end -}}
{{- if and $saslNeedsCredentials (not .Values.sasl.credentialsSecret) -}}
{{- fail "sasl.mechanisms PLAIN and SCRAM-* need sasl.credentialsSecret" -}}
{{- end -}}
{{- if and .Values.acl.configMap .Values.acl.secret -}}
{{- fail "acl.configMap and acl.secret are both set: the rules file comes from one of them" -}}
{{- end -}}
{{- $gateway := .Values.gateway -}}
{{- $sources := list -}}
{{- if include "kafscale-proxy.gatewayRendered" . }}{{ $sources = append $sources "gateway's sections (virtualClusters, audit, validation, encryption, lfsResolve)" }}{{ end -}}
{{- if $gateway.existingConfigMap.name }}{{ $sources = append $sources "gateway.existingConfigMap.name" }}{{ end -}}
{{- if $gateway.existingSecret.name }}{{ $sources = append $sources "gateway.existingSecret.name" }}{{ end -}}
{{- if gt (len $sources) 1 -}}
{{- fail (printf "%s are all set: the gateway file comes from one of them" (join " and " $sources)) -}}
{{- end -}}
{{- if include "kafscale-proxy.gatewayConfigMap" . -}}
{{- if get .Values.config "KAFSCALE_PROXY_GATEWAY_FILE" -}}
{{- fail "gateway is set, and so is config.KAFSCALE_PROXY_GATEWAY_FILE: the chart mounts the gateway file and names it itself; remove config.KAFSCALE_PROXY_GATEWAY_FILE" -}}
{{- end -}}
{{- end -}}
{{- /* Virtual clusters placed by principal need clients that authenticate; one with a listener
of its own, or a TLS server name, places its clients by where they connect. A file of the user's
is checked by the proxy at start. */ -}}
{{- $byPrincipal := false -}}
{{- range $gateway.virtualClusters }}{{ if not (or .listener .sniHostSuffix) }}{{ $byPrincipal = true }}{{ end }}{{ end -}}
{{- if and $byPrincipal (not (or (hasKey $settings "KAFSCALE_PROXY_SASL_MECHANISMS") (eq (get $settings "KAFSCALE_PROXY_TLS_REQUIRE_CLIENT_CERT" | toString) "true"))) -}}
{{- fail "gateway.virtualClusters placed by principals need clients that authenticate: set sasl.mechanisms, or tls.clientAuth required (or give each virtual cluster a listener of its own)" -}}
{{- end -}}
{{- range $i, $vc := $gateway.virtualClusters -}}
{{- if and $vc.sniHostSuffix (ne $.Values.advertiseMode "sni") -}}
{{- fail (printf "gateway.virtualClusters[%d].sniHostSuffix needs advertiseMode sni" $i) -}}
{{- end -}}
{{- if and $vc.listener (eq $.Values.advertiseMode "ports") (not $vc.brokerPortBase) -}}
{{- fail (printf "gateway.virtualClusters[%d].listener in advertiseMode ports needs brokerPortBase" $i) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.service.perBroker (ne .Values.advertiseMode "ports") -}}
{{- fail "service.perBroker needs advertiseMode ports: only there has each broker a port of its own" -}}
{{- end -}}
{{- if and .Values.service.perBroker (eq .Values.service.type "ClusterIP") -}}
{{- fail "service.perBroker needs service.type LoadBalancer or NodePort: a ClusterIP Service per broker adds nothing to the one Service" -}}
{{- end -}}
{{- $sniExpose := .Values.sni.expose -}}
{{- if and (ne $sniExpose "none") (ne .Values.advertiseMode "sni") -}}
{{- fail (printf "sni.expose %s needs advertiseMode sni" $sniExpose) -}}
{{- end -}}
{{- if and (eq $sniExpose "tlsRoute") (not .Values.sni.tlsRoute.parentRefs) -}}
{{- fail "sni.expose tlsRoute needs sni.tlsRoute.parentRefs: the Gateway (with a TLS listener in Passthrough mode) the route attaches to" -}}
{{- end -}}
{{- $btls := .Values.backend.tls -}}
{{- if and $btls.mutual (not $btls.secretName) -}}
{{- fail "backend.tls.mutual needs backend.tls.secretName (holding tls.crt and tls.key)" -}}
{{- end -}}
{{- if and (or $btls.secretName $btls.mutual $btls.insecureSkipHostnameVerify) (not $btls.enabled) -}}
{{- fail "backend.tls settings need backend.tls.enabled" -}}
{{- end -}}
{{- $inline := include "kafscale-proxy.secretSettings" . | fromYaml -}}
{{- if and .Values.existingSecret (gt (len $inline) 0) -}}
{{- fail (printf "existingSecret is set, so the secret values %s must be keys of that Secret, not values" (keys $inline | sortAlpha | join ", ")) -}}
{{- end -}}
{{- $pdb := .Values.podDisruptionBudget -}}
{{- if and $pdb.enabled (kindIs "invalid" $pdb.minAvailable) (kindIs "invalid" $pdb.maxUnavailable) -}}
{{- fail "podDisruptionBudget.enabled needs minAvailable or maxUnavailable" -}}
{{- end -}}
{{- $drainSeconds := div (add (include "kafscale-proxy.envValue" .Values.drainTimeoutMs | int64) 999) 1000 -}}
{{- $needed := add $drainSeconds .Values.preStopSleepSeconds -}}
{{- if and (not (kindIs "invalid" .Values.terminationGracePeriodSeconds)) (le (int64 .Values.terminationGracePeriodSeconds) (int64 $needed)) -}}
{{- fail (printf "terminationGracePeriodSeconds (%v) must be longer than preStopSleepSeconds plus drainTimeoutMs (%d s), or in-flight requests are cut" .Values.terminationGracePeriodSeconds $needed) -}}
{{- end -}}
{{- end -}}

{{/* The pod's grace period: the preStop sleep, the drain deadline, then 10 s to close. */}}
{{- define "kafscale-proxy.terminationGracePeriodSeconds" -}}
{{- if not (kindIs "invalid" .Values.terminationGracePeriodSeconds) -}}
{{- include "kafscale-proxy.envValue" .Values.terminationGracePeriodSeconds -}}
{{- else -}}
{{- $drainSeconds := div (add (include "kafscale-proxy.envValue" .Values.drainTimeoutMs | int64) 999) 1000 -}}
{{- add $drainSeconds .Values.preStopSleepSeconds 10 -}}
{{- end -}}
{{- end -}}
